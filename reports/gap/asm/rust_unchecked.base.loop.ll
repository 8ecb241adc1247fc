; rust_unchecked@base: the WMA inner loop's LLVM IR block
; cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS=''
bb6.us.i132.i.i:                                  ; preds = %bb4.us.i129.i.i, %bb6.us.i132.i.i
  %iter1.sroa.0.07.us.i133.i.i = phi i64 [ %221, %bb6.us.i132.i.i ], [ 0, %bb4.us.i129.i.i ]
  %s.sroa.0.06.us.i134.i.i = phi double [ %222, %bb6.us.i132.i.i ], [ 0.000000e+00, %bb4.us.i129.i.i ]
  %niter549 = phi i64 [ %niter549.next.3, %bb6.us.i132.i.i ], [ 0, %bb4.us.i129.i.i ]
  %215 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 1
  %_15.us.i135.i.i = add nuw nsw i64 %iter1.sroa.0.07.us.i133.i.i, %_16.us.i131.i.i
  %_30.us.i136.i.i = icmp samesign ult i64 %_15.us.i135.i.i, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i)
  %_29.us.i137.i.i = getelementptr inbounds nuw double, ptr %187, i64 %_15.us.i135.i.i
  %_14.us.i138.i.i = load double, ptr %_29.us.i137.i.i, align 8, !alias.scope !776, !noalias !790, !noundef !3
  %_18.us.i139.i.i = uitofp i64 %215 to double
  %_13.us.i140.i.i = fmul double %_14.us.i138.i.i, %_18.us.i139.i.i
  %216 = fadd double %s.sroa.0.06.us.i134.i.i, %_13.us.i140.i.i
  %217 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 2
  %_15.us.i135.i.i.1 = add nuw nsw i64 %215, %_16.us.i131.i.i
  %_30.us.i136.i.i.1 = icmp samesign ult i64 %_15.us.i135.i.i.1, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.1)
  %_29.us.i137.i.i.1 = getelementptr inbounds nuw double, ptr %187, i64 %_15.us.i135.i.i.1
  %_14.us.i138.i.i.1 = load double, ptr %_29.us.i137.i.i.1, align 8, !alias.scope !776, !noalias !790, !noundef !3
  %_18.us.i139.i.i.1 = uitofp i64 %217 to double
  %_13.us.i140.i.i.1 = fmul double %_14.us.i138.i.i.1, %_18.us.i139.i.i.1
  %218 = fadd double %216, %_13.us.i140.i.i.1
  %219 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 3
  %_15.us.i135.i.i.2 = add nuw nsw i64 %217, %_16.us.i131.i.i
  %_30.us.i136.i.i.2 = icmp samesign ult i64 %_15.us.i135.i.i.2, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.2)
  %_29.us.i137.i.i.2 = getelementptr inbounds nuw double, ptr %187, i64 %_15.us.i135.i.i.2
  %_14.us.i138.i.i.2 = load double, ptr %_29.us.i137.i.i.2, align 8, !alias.scope !776, !noalias !790, !noundef !3
  %_18.us.i139.i.i.2 = uitofp i64 %219 to double
  %_13.us.i140.i.i.2 = fmul double %_14.us.i138.i.i.2, %_18.us.i139.i.i.2
  %220 = fadd double %218, %_13.us.i140.i.i.2
  %221 = add nuw i64 %iter1.sroa.0.07.us.i133.i.i, 4
  %_15.us.i135.i.i.3 = add nuw nsw i64 %219, %_16.us.i131.i.i
  %_30.us.i136.i.i.3 = icmp samesign ult i64 %_15.us.i135.i.i.3, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.3)
  %_29.us.i137.i.i.3 = getelementptr inbounds nuw double, ptr %187, i64 %_15.us.i135.i.i.3
  %_14.us.i138.i.i.3 = load double, ptr %_29.us.i137.i.i.3, align 8, !alias.scope !776, !noalias !790, !noundef !3
  %_18.us.i139.i.i.3 = uitofp i64 %221 to double
  %_13.us.i140.i.i.3 = fmul double %_14.us.i138.i.i.3, %_18.us.i139.i.i.3
  %222 = fadd double %220, %_13.us.i140.i.i.3
  %niter549.next.3 = add i64 %niter549, 4
  %niter549.ncmp.3 = icmp eq i64 %niter549.next.3, %unroll_iter548
  br i1 %niter549.ncmp.3, label %bb2.bb7_crit_edge.us.i142.i.i.unr-lcssa, label %bb6.us.i132.i.i
