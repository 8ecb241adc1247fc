; naive@clang14: the WMA inner loop's LLVM IR block
; clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/naive.clang14.s variants/naive.c
114:                                              ; preds = %107
  %115 = getelementptr inbounds double, double* %0, i64 %112
  %116 = load double, double* %115, align 8, !tbaa !12
  %117 = sitofp i64 %110 to double
  %118 = fmul double %116, %117
  %119 = fadd double %109, %118
  %120 = icmp eq i64 %110, %2
  br i1 %120, label %121, label %107, !llvm.loop !26
