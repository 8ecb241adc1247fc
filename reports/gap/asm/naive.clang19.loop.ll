; naive@clang19: the WMA inner loop's LLVM IR block
; clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/naive.clang19.s variants/naive.c
54:                                               ; preds = %49
  %55 = getelementptr inbounds double, ptr %0, i64 %52
  %56 = load double, ptr %55, align 8, !tbaa !9
  %57 = add nuw nsw i64 %50, 1
  %58 = uitofp nneg i64 %57 to double
  %59 = fmul double %56, %58
  %60 = fadd double %51, %59
  %61 = icmp eq i64 %57, %2
  br i1 %61, label %62, label %49, !llvm.loop !35
