# numba@host: the WMA inner loop (_ZN9hma_numba3wmaB3v14B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIdLi1E1C7mutable7alignedEx)
# numba wma.inspect_asm/inspect_llvm, target cpu rocketlake
.LBB0_30:
	leaq	-4(%r11), %r12
	leaq	-7(%r11), %rbp
	vcvtsi2sd	%rbp, %xmm15, %xmm2
	vmulsd	-64(%r8,%r11,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	-6(%r11), %rbp
	vcvtsi2sd	%rbp, %xmm15, %xmm2
	vmulsd	-56(%r8,%r11,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	-5(%r11), %rbp
	vcvtsi2sd	%rbp, %xmm15, %xmm2
	vmulsd	-48(%r8,%r11,8), %xmm2, %xmm2
	vcvtsi2sd	%r12, %xmm15, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-40(%r8,%r11,8), %xmm3, %xmm2
	leaq	-3(%r11), %r12
	vcvtsi2sd	%r12, %xmm15, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-32(%r8,%r11,8), %xmm3, %xmm2
	leaq	-2(%r11), %r12
	vcvtsi2sd	%r12, %xmm15, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-24(%r8,%r11,8), %xmm3, %xmm2
	leaq	-1(%r11), %r12
	vcvtsi2sd	%r12, %xmm15, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-16(%r8,%r11,8), %xmm3, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	vcvtsi2sd	%r11, %xmm15, %xmm2
	vmulsd	-8(%r8,%r11,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	8(%r10,%r11), %r12
	addq	$8, %r11
	cmpq	$8, %r12
	jne	.LBB0_30
