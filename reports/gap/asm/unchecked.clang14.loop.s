# unchecked@clang14: the WMA inner loop (port_wma)
# clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/unchecked.clang14.s variants/unchecked.c
.LBB1_20:                               #   Parent Loop BB1_17 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	leaq	1(%rbx), %rcx
	xorps	%xmm2, %xmm2
	cvtsi2sd	%rcx, %xmm2
	mulsd	-8(%rsi,%rbx,8), %xmm2
	addsd	%xmm0, %xmm2
	leaq	2(%rbx), %rcx
	xorps	%xmm0, %xmm0
	cvtsi2sd	%rcx, %xmm0
	mulsd	(%rsi,%rbx,8), %xmm0
	addsd	%xmm2, %xmm0
	movq	%rcx, %rbx
	cmpq	%rcx, %rdx
	jne	.LBB1_20
