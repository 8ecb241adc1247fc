# x_wu64@gcc: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wu64.gcc.s variants/x_wu64.c
.L13:
	mulsd	(%rsi,%rdx,8), %xmm0
	movq	%rdx, %rax
	addq	$1, %rdx
	addsd	%xmm0, %xmm1
	cmpq	%rax, %rbp
	je	.L15
.L14:
	movq	%rdx, %rax
	testq	%rax, %rax
	jns	.L23
	movq	%rax, %rcx
	andl	$1, %eax
	pxor	%xmm0, %xmm0
	shrq	%rcx
	orq	%rax, %rcx
	cvtsi2sdq	%rcx, %xmm0
	addsd	%xmm0, %xmm0
	jmp	.L13
