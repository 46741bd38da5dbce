// Every te op written in the generic form, printed back in the generic form: reduce_kind
// and reduce_extents are properties (<{...}>), the schedule is a discardable attribute
// ({...}), the body's block arguments are spelled out. The second run checks that the generic
// output parses back to the same generic text; the third that the generic form reaches the
// custom printer intact.
//
// RUN: minitvm-opt %s --print-op-generic | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt --print-op-generic | filecheck %s
// RUN: minitvm-opt %s | filecheck %s --check-prefix=CUSTOM

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "func.func"() <{sym_name = "kernel", function_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32>) -> (tensor<4x16xf32>, tensor<4xf32>, tensor<f32>)}> ({
// CHECK-NEXT:  ^bb0(%[[A:\w+]]: tensor<4x8xf32>, %[[B:\w+]]: tensor<8x16xf32>, %[[S:\w+]]: tensor<f32>):
// CUSTOM-LABEL: func.func @kernel(
"func.func"() <{sym_name = "kernel", function_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32>) -> (tensor<4x16xf32>, tensor<4xf32>, tensor<f32>)}> ({
^bb0(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>, %s: tensor<f32>):
  // A named reduction with a schedule.
  // CHECK-NEXT: %[[MM:\w+]] = "te.compute"() <{name = "mm", reduce_kind = "sum", reduce_extents = array<i64: 8>}> ({
  // CHECK-NEXT: ^bb0(%[[I:\w+]]: index, %[[J:\w+]]: index, %[[K:\w+]]: index):
  // CHECK-NEXT:   %[[VA:\w+]] = "te.read"(%[[A]], %[[I]], %[[K]]) : (tensor<4x8xf32>, index, index) -> f32
  // CHECK-NEXT:   %[[VB:\w+]] = "te.read"(%[[B]], %[[K]], %[[J]]) : (tensor<8x16xf32>, index, index) -> f32
  // CHECK-NEXT:   %[[P:\w+]] = "arith.mulf"(%[[VA]], %[[VB]]) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  // CHECK-NEXT:   "te.yield"(%[[P]]) : (f32) -> ()
  // CHECK-NEXT: }) {schedule = [#te.split<"i1", 4>, #te.reorder<["i1.o", "i0", "r0", "i1.i"]>, #te.vectorize<"i1.i">, #te.unroll<"r0">, #te.parallel<"i1.o">]} : () -> tensor<4x16xf32>
  // CUSTOM-NEXT: te.compute "mm" (%{{\w+}}, %{{\w+}}) in [4, 16] sum (%{{\w+}}) in [8] {schedule = [#te.split<"i1", 4>, #te.reorder<["i1.o", "i0", "r0", "i1.i"]>, #te.vectorize<"i1.i">, #te.unroll<"r0">, #te.parallel<"i1.o">]} : tensor<4x16xf32> {
  %mm = "te.compute"() <{name = "mm", reduce_kind = "sum", reduce_extents = array<i64: 8>}> ({
  ^bb1(%i: index, %j: index, %k: index):
    %a = "te.read"(%A, %i, %k) : (tensor<4x8xf32>, index, index) -> f32
    %b = "te.read"(%B, %k, %j) : (tensor<8x16xf32>, index, index) -> f32
    %p = "arith.mulf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {schedule = [#te.split<"i1", 4>, #te.reorder<["i1.o", "i0", "r0", "i1.i"]>, #te.vectorize<"i1.i">, #te.unroll<"r0">, #te.parallel<"i1.o">]} : () -> tensor<4x16xf32>
  // max over two axes, with the parameterless and the two-string primitives.
  // CHECK-NEXT: %[[MX:\w+]] = "te.compute"() <{reduce_kind = "max", reduce_extents = array<i64: 2, 8>}> ({
  // CHECK-NEXT: ^bb0(%[[N:\w+]]: index, %[[R0:\w+]]: index, %[[R1:\w+]]: index):
  // CHECK-NEXT:   %[[V:\w+]] = "te.read"(%[[MM]], %[[N]], %[[R1]]) : (tensor<4x16xf32>, index, index) -> f32
  // CHECK-NEXT:   "te.yield"(%[[V]]) : (f32) -> ()
  // CHECK-NEXT: }) {schedule = [#te.compute_at<"mm", "i0">, #te.inline]} : () -> tensor<4xf32>
  // CUSTOM:      te.compute (%{{\w+}}) in [4] max (%{{\w+}}, %{{\w+}}) in [2, 8] {schedule = [#te.compute_at<"mm", "i0">, #te.inline]} : tensor<4xf32> {
  %mx = "te.compute"() <{reduce_kind = "max", reduce_extents = array<i64: 2, 8>}> ({
  ^bb2(%n: index, %r0: index, %r1: index):
    %v = "te.read"(%mm, %n, %r1) : (tensor<4x16xf32>, index, index) -> f32
    "te.yield"(%v) : (f32) -> ()
  }) {schedule = [#te.compute_at<"mm", "i0">, #te.inline]} : () -> tensor<4xf32>
  // A rank-0 min reduction: a block with only the reduction's argument.
  // CHECK-NEXT: %[[MN:\w+]] = "te.compute"() <{reduce_kind = "min", reduce_extents = array<i64: 4>}> ({
  // CHECK-NEXT: ^bb0(%[[T:\w+]]: index):
  // CHECK-NEXT:   %[[X:\w+]] = "te.read"(%[[MX]], %[[T]]) : (tensor<4xf32>, index) -> f32
  // CHECK-NEXT:   %[[Y:\w+]] = "te.read"(%[[S]]) : (tensor<f32>) -> f32
  // CHECK-NEXT:   %[[Z:\w+]] = "arith.minimumf"(%[[X]], %[[Y]]) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  // CHECK-NEXT:   "te.yield"(%[[Z]]) {note} : (f32) -> ()
  // CHECK-NEXT: }) : () -> tensor<f32>
  // CUSTOM:      te.compute () in [] min (%{{\w+}}) in [4] : tensor<f32> {
  // CUSTOM:        te.yield %{{\w+}} {note} : f32
  %mn = "te.compute"() <{reduce_kind = "min", reduce_extents = array<i64: 4>}> ({
  ^bb3(%t: index):
    %x = "te.read"(%mx, %t) : (tensor<4xf32>, index) -> f32
    %y = "te.read"(%s) : (tensor<f32>) -> f32
    %z = "arith.minimumf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "te.yield"(%z) {note} : (f32) -> ()
  }) : () -> tensor<f32>
  // CHECK-NEXT: "func.return"(%[[MM]], %[[MX]], %[[MN]]) : (tensor<4x16xf32>, tensor<4xf32>, tensor<f32>) -> ()
  // CHECK-NEXT: }) {te.kernel} : () -> ()
  // CUSTOM:     func.return
  // CUSTOM-NEXT: }
  "func.return"(%mm, %mx, %mn) : (tensor<4x16xf32>, tensor<4xf32>, tensor<f32>) -> ()
}) {te.kernel} : () -> ()

// CHECK-NEXT: }) : () -> ()
