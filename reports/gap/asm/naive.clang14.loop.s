# naive@clang14: the WMA inner loop (port_wma)
# clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/naive.clang14.s variants/naive.c
.LBB1_18:                               #   Parent Loop BB1_17 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	leaq	(%rdx,%rsi), %rcx
	cmpq	%r15, %rcx
	jae	.LBB1_26
# %bb.19:                               #   in Loop: Header=BB1_18 Depth=2
	leaq	1(%rsi), %rcx
	xorps	%xmm2, %xmm2
	cvtsi2sd	%rcx, %xmm2
	mulsd	(%rbx,%rsi,8), %xmm2
	addsd	%xmm2, %xmm1
	movq	%rcx, %rsi
	cmpq	%rcx, %r14
	jne	.LBB1_18
