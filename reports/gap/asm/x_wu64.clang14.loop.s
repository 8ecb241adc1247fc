# x_wu64@clang14: the WMA inner loop (port_wma)
# clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wu64.clang14.s variants/x_wu64.c
.LBB1_18:                               #   Parent Loop BB1_17 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	movq	%rdx, %rsi
	#APP
	#NO_APP
	movq	%rsi, %xmm4
	punpckldq	%xmm0, %xmm4            # xmm4 = xmm4[0],xmm0[0],xmm4[1],xmm0[1]
	subpd	%xmm2, %xmm4
	movapd	%xmm4, %xmm5
	unpckhpd	%xmm4, %xmm5                    # xmm5 = xmm5[1],xmm4[1]
	addsd	%xmm4, %xmm5
	mulsd	-8(%rbx,%rdx,8), %xmm5
	addsd	%xmm5, %xmm3
	leaq	(%r15,%rdx), %rsi
	addq	$1, %rsi
	addq	$1, %rdx
	cmpq	$1, %rsi
	jne	.LBB1_18
