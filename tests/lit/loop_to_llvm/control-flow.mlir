// convert-loop-to-llvm, control flow: loop.for becomes ^loop (induction variable and
// iter_args as block arguments) / ^body / ^done, loop.if a llvm.cond_br around ^then.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @row_sum(
// CHECK-SAME:    %[[A:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[OUT:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK-DAG:     %[[C0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-DAG:     %[[C50:.*]] = llvm.mlir.constant(50) : i64
// CHECK-DAG:     %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK:         llvm.br ^[[BEGIN:begin[_0-9]*]]
// CHECK-NEXT:  ^[[BEGIN]]:
// CHECK-NEXT:    llvm.br ^[[LOOP:loop[_0-9]*]](%[[C0]], %[[ZERO]] : i64, f32)
// CHECK-NEXT:  ^[[LOOP]](%[[K:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %[[K]], %[[C50]] : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[BODY:body[_0-9]*]], ^[[DONE:done[_0-9]*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %[[A]][%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[SUM:.*]] = llvm.fadd %[[ACC]], %[[X]] : f32
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %[[K]], %[[C1]] overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[LOOP]](%[[NEXT]], %[[SUM]] : i64, f32)
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.store %[[ACC]], %[[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.return
func.func @row_sum(%a: memref<50xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %s = loop.for %k = 0 to 50 step 1 iter_args(%acc = %zero) -> (f32) {
    %x = loop.load %a[%k] : memref<50xf32> -> f32
    %n = arith.addf %acc, %x : f32
    loop.yield %n : f32
  }
  loop.store %s, %out[] : f32, memref<f32>
  func.return
}

// A non-dividing split: the guard is a cond_br around the body; the index o * 4 + i is
// computed once for the load and the store.
// CHECK-LABEL: llvm.func @guarded(
// CHECK:       ^[[OUTER:loop[_0-9]*]](%[[O:.*]]: i64):
// CHECK:       ^[[INNER:loop[_0-9]*]](%[[I:.*]]: i64):
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.cond_br %{{.*}}, ^[[BODY:body[_0-9]*]], ^{{.*}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[BASE:.*]] = llvm.mul %[[O]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[IDX:.*]] = llvm.add %[[BASE]], %[[I]] overflow<nsw> : i64
// CHECK-NEXT:    %[[IN:.*]] = llvm.icmp "slt" %[[IDX]], %{{.*}} : i64
// CHECK-NEXT:    llvm.cond_br %[[IN]], ^[[THEN:then[_0-9]*]], ^[[ENDIF:endif[_0-9]*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[IDX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[Y:.*]] = llvm.fneg %[[X]] : f32
// CHECK-NEXT:    %[[Q:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[IDX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[Y]], %[[Q]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[ENDIF]]
// CHECK-NEXT:  ^[[ENDIF]]:
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %[[I]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[INNER]](%[[NEXT]] : i64)
func.func @guarded(%a: memref<10xf32>, %out: memref<10xf32>) {
  loop.for %o = 0 to 3 step 1 {
    loop.for %i = 0 to 4 step 1 {
      %c4 = arith.constant 4 : index
      %c10 = arith.constant 10 : index
      %base = arith.muli %o, %c4 : index
      %idx = arith.addi %base, %i : index
      %inside = arith.cmpi slt, %idx, %c10 : index
      loop.if %inside {
        %x = loop.load %a[%idx] : memref<10xf32> -> f32
        %y = arith.negf %x : f32
        loop.store %y, %out[%idx] : f32, memref<10xf32>
      }
    }
  }
  func.return
}

// A loop of one iteration is its body, with the induction variable a constant.
// CHECK-LABEL: llvm.func @once(
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.getelementptr inbounds %{{.*}}[3] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         llvm.return
func.func @once(%a: memref<8xf32>) {
  loop.for %i = 3 to 4 step 1 {
    %x = loop.load %a[%i] : memref<8xf32> -> f32
    %y = arith.addf %x, %x : f32
    loop.store %y, %a[%i] : f32, memref<8xf32>
  }
  func.return
}

// Without the noalias contract (e.g. for kernels that work in place), plain pointers.
// RUN: minitvm-opt %s -p 'convert-loop-to-llvm{noalias=false}' | filecheck %s --check-prefix=ALIAS
// ALIAS: llvm.func @row_sum(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr) {

// loop.while: ^while loads the flag (a byte: i1 is stored as i8) and branches to ^do or past
// it to ^wend; ^do branches back.
// CHECK-LABEL: llvm.func @countdown(
// CHECK-SAME:    %[[F:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[N:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK:         llvm.br ^[[WHILE:while[_0-9]*]]
// CHECK-NEXT:  ^[[WHILE]]:
// CHECK-NEXT:    %[[BYTE:\w+]] = llvm.load %[[F]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[FLAG:\w+]] = llvm.icmp "ne" %[[BYTE]], %{{\w+}} : i8
// CHECK-NEXT:    llvm.cond_br %[[FLAG]], ^[[DO:do[_0-9]*]], ^[[WEND:wend[_0-9]*]]
// CHECK-NEXT:  ^[[DO]]:
// CHECK:         llvm.store %{{\w+}}, %[[N]]
// CHECK:         llvm.store %{{\w+}}, %[[F]]
// CHECK-NEXT:    llvm.br ^[[WHILE]]
// CHECK-NEXT:  ^[[WEND]]:
// CHECK-NEXT:    llvm.return
func.func @countdown(%flag: memref<i1>, %n: memref<i64>) {
  loop.while %flag : memref<i1> {
    %v = loop.load %n[] : memref<i64> -> i64
    %one = arith.constant 1 : i64
    %w = arith.subi %v, %one : i64
    loop.store %w, %n[] : i64, memref<i64>
    %zero = arith.constant 0 : i64
    %more = arith.cmpi sgt, %w, %zero : i64
    loop.store %more, %flag[] : i1, memref<i1>
  }
  func.return
}
