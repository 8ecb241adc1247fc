# numba@generic: the WMA inner loop (_ZN9hma_numba3wmaB3v14B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIdLi1E1C7mutable7alignedEx)
# numba wma.inspect_asm/inspect_llvm, target cpu generic
.LBB0_22:
	movq	%r12, %rbp
	incq	%r12
	xorps	%xmm2, %xmm2
	cvtsi2sd	%r12, %xmm2
	mulsd	-24(%r11,%rbp,8), %xmm2
	addsd	%xmm1, %xmm2
	leaq	2(%rbp), %r12
	xorps	%xmm1, %xmm1
	cvtsi2sd	%r12, %xmm1
	mulsd	-16(%r11,%rbp,8), %xmm1
	addsd	%xmm2, %xmm1
	leaq	3(%rbp), %r12
	xorps	%xmm2, %xmm2
	cvtsi2sd	%r12, %xmm2
	mulsd	-8(%r11,%rbp,8), %xmm2
	addsd	%xmm1, %xmm2
	leaq	4(%rbp), %r12
	xorps	%xmm1, %xmm1
	cvtsi2sd	%r12, %xmm1
	mulsd	(%r11,%rbp,8), %xmm1
	addsd	%xmm2, %xmm1
	cmpq	%r12, %r10
	jne	.LBB0_22
