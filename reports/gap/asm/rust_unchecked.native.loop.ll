; rust_unchecked@native: the WMA inner loop's LLVM IR block
; cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS='-C target-cpu=native'
bb6.us.i132.i.i:                                  ; preds = %bb4.us.i129.i.i, %bb6.us.i132.i.i
  %iter1.sroa.0.07.us.i133.i.i = phi i64 [ %333, %bb6.us.i132.i.i ], [ 0, %bb4.us.i129.i.i ]
  %s.sroa.0.06.us.i134.i.i = phi double [ %334, %bb6.us.i132.i.i ], [ 0.000000e+00, %bb4.us.i129.i.i ]
  %niter587 = phi i64 [ %niter587.next.7, %bb6.us.i132.i.i ], [ 0, %bb4.us.i129.i.i ]
  %319 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 1
  %_15.us.i135.i.i = add nuw nsw i64 %iter1.sroa.0.07.us.i133.i.i, %_16.us.i131.i.i
  %_30.us.i136.i.i = icmp samesign ult i64 %_15.us.i135.i.i, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i)
  %_29.us.i137.i.i = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i
  %_14.us.i138.i.i = load double, ptr %_29.us.i137.i.i, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i = uitofp i64 %319 to double
  %_13.us.i140.i.i = fmul double %_14.us.i138.i.i, %_18.us.i139.i.i
  %320 = fadd double %s.sroa.0.06.us.i134.i.i, %_13.us.i140.i.i
  %321 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 2
  %_15.us.i135.i.i.1 = add nuw nsw i64 %319, %_16.us.i131.i.i
  %_30.us.i136.i.i.1 = icmp samesign ult i64 %_15.us.i135.i.i.1, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.1)
  %_29.us.i137.i.i.1 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.1
  %_14.us.i138.i.i.1 = load double, ptr %_29.us.i137.i.i.1, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.1 = uitofp i64 %321 to double
  %_13.us.i140.i.i.1 = fmul double %_14.us.i138.i.i.1, %_18.us.i139.i.i.1
  %322 = fadd double %320, %_13.us.i140.i.i.1
  %323 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 3
  %_15.us.i135.i.i.2 = add nuw nsw i64 %321, %_16.us.i131.i.i
  %_30.us.i136.i.i.2 = icmp samesign ult i64 %_15.us.i135.i.i.2, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.2)
  %_29.us.i137.i.i.2 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.2
  %_14.us.i138.i.i.2 = load double, ptr %_29.us.i137.i.i.2, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.2 = uitofp i64 %323 to double
  %_13.us.i140.i.i.2 = fmul double %_14.us.i138.i.i.2, %_18.us.i139.i.i.2
  %324 = fadd double %322, %_13.us.i140.i.i.2
  %325 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 4
  %_15.us.i135.i.i.3 = add nuw nsw i64 %323, %_16.us.i131.i.i
  %_30.us.i136.i.i.3 = icmp samesign ult i64 %_15.us.i135.i.i.3, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.3)
  %_29.us.i137.i.i.3 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.3
  %_14.us.i138.i.i.3 = load double, ptr %_29.us.i137.i.i.3, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.3 = uitofp i64 %325 to double
  %_13.us.i140.i.i.3 = fmul double %_14.us.i138.i.i.3, %_18.us.i139.i.i.3
  %326 = fadd double %324, %_13.us.i140.i.i.3
  %327 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 5
  %_15.us.i135.i.i.4 = add nuw nsw i64 %325, %_16.us.i131.i.i
  %_30.us.i136.i.i.4 = icmp samesign ult i64 %_15.us.i135.i.i.4, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.4)
  %_29.us.i137.i.i.4 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.4
  %_14.us.i138.i.i.4 = load double, ptr %_29.us.i137.i.i.4, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.4 = uitofp i64 %327 to double
  %_13.us.i140.i.i.4 = fmul double %_14.us.i138.i.i.4, %_18.us.i139.i.i.4
  %328 = fadd double %326, %_13.us.i140.i.i.4
  %329 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 6
  %_15.us.i135.i.i.5 = add nuw nsw i64 %327, %_16.us.i131.i.i
  %_30.us.i136.i.i.5 = icmp samesign ult i64 %_15.us.i135.i.i.5, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.5)
  %_29.us.i137.i.i.5 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.5
  %_14.us.i138.i.i.5 = load double, ptr %_29.us.i137.i.i.5, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.5 = uitofp i64 %329 to double
  %_13.us.i140.i.i.5 = fmul double %_14.us.i138.i.i.5, %_18.us.i139.i.i.5
  %330 = fadd double %328, %_13.us.i140.i.i.5
  %331 = or disjoint i64 %iter1.sroa.0.07.us.i133.i.i, 7
  %_15.us.i135.i.i.6 = add nuw nsw i64 %329, %_16.us.i131.i.i
  %_30.us.i136.i.i.6 = icmp samesign ult i64 %_15.us.i135.i.i.6, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.6)
  %_29.us.i137.i.i.6 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.6
  %_14.us.i138.i.i.6 = load double, ptr %_29.us.i137.i.i.6, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.6 = uitofp i64 %331 to double
  %_13.us.i140.i.i.6 = fmul double %_14.us.i138.i.i.6, %_18.us.i139.i.i.6
  %332 = fadd double %330, %_13.us.i140.i.i.6
  %333 = add nuw i64 %iter1.sroa.0.07.us.i133.i.i, 8
  %_15.us.i135.i.i.7 = add nuw nsw i64 %331, %_16.us.i131.i.i
  %_30.us.i136.i.i.7 = icmp samesign ult i64 %_15.us.i135.i.i.7, %close.1
  tail call void @llvm.assume(i1 %_30.us.i136.i.i.7)
  %_29.us.i137.i.i.7 = getelementptr inbounds nuw double, ptr %265, i64 %_15.us.i135.i.i.7
  %_14.us.i138.i.i.7 = load double, ptr %_29.us.i137.i.i.7, align 8, !alias.scope !797, !noalias !811, !noundef !3
  %_18.us.i139.i.i.7 = uitofp i64 %333 to double
  %_13.us.i140.i.i.7 = fmul double %_14.us.i138.i.i.7, %_18.us.i139.i.i.7
  %334 = fadd double %332, %_13.us.i140.i.i.7
  %niter587.next.7 = add i64 %niter587, 8
  %niter587.ncmp.7 = icmp eq i64 %niter587.next.7, %unroll_iter586
  br i1 %niter587.ncmp.7, label %bb2.bb7_crit_edge.us.i142.i.i.unr-lcssa, label %bb6.us.i132.i.i
