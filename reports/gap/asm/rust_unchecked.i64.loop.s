# rust_unchecked@i64: the WMA inner loop (_ZN13hma_rust_peer9unchecked5sweep17hfaeeffab7c733b03E)
# cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS=''; i64 patch
.LBB19_26:
	movq	%r8, %r9
	incq	%r8
	xorps	%xmm2, %xmm2
	cvtsi2sd	%r8, %xmm2
	mulsd	-24(%rsi,%r9,8), %xmm2
	addsd	%xmm1, %xmm2
	leaq	2(%r9), %r8
	xorps	%xmm1, %xmm1
	cvtsi2sd	%r8, %xmm1
	mulsd	-16(%rsi,%r9,8), %xmm1
	addsd	%xmm2, %xmm1
	leaq	3(%r9), %r8
	xorps	%xmm2, %xmm2
	cvtsi2sd	%r8, %xmm2
	mulsd	-8(%rsi,%r9,8), %xmm2
	addsd	%xmm1, %xmm2
	leaq	4(%r9), %r8
	xorps	%xmm1, %xmm1
	cvtsi2sd	%r8, %xmm1
	mulsd	(%rsi,%r9,8), %xmm1
	addsd	%xmm2, %xmm1
	cmpq	%r8, %r15
	jne	.LBB19_26
