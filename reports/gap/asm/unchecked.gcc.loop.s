# unchecked@gcc: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/unchecked.gcc.s variants/unchecked.c
.L12:
	movsd	8(%rdx,%rax,8), %xmm2
	pxor	%xmm0, %xmm0
	addq	$1, %rax
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	addsd	%xmm0, %xmm1
	cmpq	%rax, %rbp
	jne	.L12
