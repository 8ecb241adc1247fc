# naive@clang19: the WMA inner loop (port_wma)
# clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/naive.clang19.s variants/naive.c
.LBB1_13:                               #   Parent Loop BB1_12 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	leaq	(%rdx,%rsi), %rcx
	cmpq	%rbx, %rcx
	jae	.LBB1_23
# %bb.14:                               #   in Loop: Header=BB1_13 Depth=2
	leaq	1(%rsi), %rcx
	xorps	%xmm2, %xmm2
	cvtsi2sd	%rcx, %xmm2
	mulsd	(%r15,%rsi,8), %xmm2
	addsd	%xmm2, %xmm1
	movq	%rcx, %rsi
	cmpq	%rcx, %r14
	jne	.LBB1_13
