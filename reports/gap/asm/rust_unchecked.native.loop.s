# rust_unchecked@native: the WMA inner loop (_ZN13hma_rust_peer9unchecked5sweep17hfaeeffab7c733b03E)
# cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS='-C target-cpu=native'
.LBB19_26:
	movq	%r8, %r9
	incq	%r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-56(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	2(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-48(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	3(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-40(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	4(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-32(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	5(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-24(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	6(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-16(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	7(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	-8(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	8(%r9), %r8
	vcvtusi2sd	%r8, %xmm15, %xmm2
	vmulsd	(%rsi,%r9,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	cmpq	%r8, %r15
	jne	.LBB19_26
