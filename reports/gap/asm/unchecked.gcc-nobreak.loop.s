# unchecked@gcc-nobreak: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -mtune-ctrl=^sse_partial_reg_dependency,^sse_partial_reg_fp_converts_dependency,^sse_partial_reg_converts_dependency -S -o /work/main/build/gap/asm/unchecked.gcc-nobreak.s variants/unchecked.c
.L12:
	movsd	8(%rdx,%rax,8), %xmm2
	addq	$1, %rax
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	addsd	%xmm0, %xmm1
	cmpq	%rax, %rbp
	jne	.L12
