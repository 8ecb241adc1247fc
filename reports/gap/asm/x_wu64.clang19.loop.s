# x_wu64@clang19: the WMA inner loop (port_wma)
# clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wu64.clang19.s variants/x_wu64.c
.LBB1_13:                               #   Parent Loop BB1_12 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	movq	%rdx, %rsi
	#APP
	#NO_APP
	movq	%rsi, %xmm4
	punpckldq	%xmm1, %xmm4            # xmm4 = xmm4[0],xmm1[0],xmm4[1],xmm1[1]
	subpd	%xmm2, %xmm4
	movapd	%xmm4, %xmm5
	unpckhpd	%xmm4, %xmm5                    # xmm5 = xmm5[1],xmm4[1]
	addsd	%xmm4, %xmm5
	mulsd	-8(%r15,%rdx,8), %xmm5
	addsd	%xmm5, %xmm3
	leaq	(%r14,%rdx), %rsi
	incq	%rsi
	incq	%rdx
	cmpq	$1, %rsi
	jne	.LBB1_13
