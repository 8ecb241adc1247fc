; unchecked@clang14: the WMA inner loop's LLVM IR block
; clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/unchecked.clang14.s variants/unchecked.c
107:                                              ; preds = %105, %107
  %108 = phi i64 [ %119, %107 ], [ 0, %105 ]
  %109 = phi double [ %126, %107 ], [ 0.000000e+00, %105 ]
  %110 = phi i64 [ %127, %107 ], [ 0, %105 ]
  %111 = or i64 %108, 1
  %112 = sub i64 %111, %2
  %113 = add i64 %112, %106
  %114 = getelementptr inbounds double, double* %0, i64 %113
  %115 = load double, double* %114, align 8, !tbaa !11
  %116 = sitofp i64 %111 to double
  %117 = fmul double %115, %116
  %118 = fadd double %109, %117
  %119 = add nuw nsw i64 %108, 2
  %120 = sub i64 %119, %2
  %121 = add i64 %120, %106
  %122 = getelementptr inbounds double, double* %0, i64 %121
  %123 = load double, double* %122, align 8, !tbaa !11
  %124 = sitofp i64 %119 to double
  %125 = fmul double %123, %124
  %126 = fadd double %118, %125
  %127 = add nuw i64 %110, 2
  %128 = icmp eq i64 %127, %103
  br i1 %128, label %129, label %107, !llvm.loop !43
