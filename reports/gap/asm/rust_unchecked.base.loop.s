# rust_unchecked@base: the WMA inner loop (_ZN13hma_rust_peer9unchecked5sweep17hfaeeffab7c733b03E)
# cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS=''
.LBB19_28:
	movq	%r8, %r9
	incq	%r8
	movq	%r8, %xmm2
	punpckldq	%xmm4, %xmm2
	subpd	%xmm5, %xmm2
	movapd	%xmm2, %xmm3
	unpckhpd	%xmm2, %xmm3
	addsd	%xmm2, %xmm3
	mulsd	-24(%rsi,%r9,8), %xmm3
	addsd	%xmm1, %xmm3
	leaq	2(%r9), %r8
	movq	%r8, %xmm1
	punpckldq	%xmm4, %xmm1
	subpd	%xmm5, %xmm1
	movapd	%xmm1, %xmm2
	unpckhpd	%xmm1, %xmm2
	addsd	%xmm1, %xmm2
	mulsd	-16(%rsi,%r9,8), %xmm2
	addsd	%xmm3, %xmm2
	leaq	3(%r9), %r8
	movq	%r8, %xmm1
	punpckldq	%xmm4, %xmm1
	subpd	%xmm5, %xmm1
	movapd	%xmm1, %xmm3
	unpckhpd	%xmm1, %xmm3
	addsd	%xmm1, %xmm3
	mulsd	-8(%rsi,%r9,8), %xmm3
	addsd	%xmm2, %xmm3
	leaq	4(%r9), %r8
	movq	%r8, %xmm2
	punpckldq	%xmm4, %xmm2
	subpd	%xmm5, %xmm2
	movapd	%xmm2, %xmm1
	unpckhpd	%xmm2, %xmm1
	addsd	%xmm2, %xmm1
	mulsd	(%rsi,%r9,8), %xmm1
	addsd	%xmm3, %xmm1
	cmpq	%r8, %r15
	jne	.LBB19_28
