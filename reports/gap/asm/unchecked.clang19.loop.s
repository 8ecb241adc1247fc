# unchecked@clang19: the WMA inner loop (port_wma)
# clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/unchecked.clang19.s variants/unchecked.c
.LBB1_16:                               #   Parent Loop BB1_12 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	leaq	1(%r9), %r8
	xorps	%xmm2, %xmm2
	cvtsi2sd	%r8, %xmm2
	mulsd	-24(%rdi,%r9,8), %xmm2
	leaq	2(%r9), %r8
	xorps	%xmm3, %xmm3
	cvtsi2sd	%r8, %xmm3
	mulsd	-16(%rdi,%r9,8), %xmm3
	addsd	%xmm1, %xmm2
	leaq	3(%r9), %r8
	xorps	%xmm4, %xmm4
	cvtsi2sd	%r8, %xmm4
	addsd	%xmm2, %xmm3
	mulsd	-8(%rdi,%r9,8), %xmm4
	leaq	4(%r9), %r8
	xorps	%xmm1, %xmm1
	cvtsi2sd	%r8, %xmm1
	mulsd	(%rdi,%r9,8), %xmm1
	addsd	%xmm3, %xmm4
	addsd	%xmm4, %xmm1
	movq	%r8, %r9
	cmpq	%r8, %rsi
	jne	.LBB1_16
