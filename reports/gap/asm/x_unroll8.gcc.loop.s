# x_unroll8@gcc: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_unroll8.gcc.s variants/x_unroll8.c
.L56:
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	addsd	%xmm0, %xmm1
	cmpq	%rax, %rbp
	je	.L13
.L12:
	leaq	1(%rax), %rcx
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rcx, %xmm0
	mulsd	8(%rdx,%rax,8), %xmm0
	addq	$2, %rax
	movsd	8(%rdx,%rax,8), %xmm2
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	8(%rdx,%rcx,8), %xmm0
	leaq	2(%rcx), %rax
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	movsd	8(%rdx,%rax,8), %xmm2
	leaq	3(%rcx), %rax
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	movsd	8(%rdx,%rax,8), %xmm2
	leaq	4(%rcx), %rax
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	movsd	8(%rdx,%rax,8), %xmm2
	leaq	5(%rcx), %rax
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	movsd	8(%rdx,%rax,8), %xmm2
	leaq	6(%rcx), %rax
	addsd	%xmm0, %xmm1
	pxor	%xmm0, %xmm0
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	movsd	8(%rdx,%rax,8), %xmm2
	leaq	7(%rcx), %rax
	addsd	%xmm0, %xmm1
	jmp	.L56
