// graph.if: the custom form prints back exactly, the generic form parses to the same op, and
// each verifier error is pinned to its exact message (see fused.mlir for the layout of the
// --verify-diagnostics output).
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @choose(
// CHECK-SAME:      %[[C:\w+]]: tensor<i1>, %[[X:\w+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[R:\w+]] = graph.if %[[C]] : tensor<i1> -> (tensor<2x3xf32>) {
// CHECK-NEXT:      %[[A:\w+]] = graph.add %[[X]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      graph.yield %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      graph.yield %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    } {note = "kept"}
// CHECK-NEXT:    func.return %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "choose"
// GENERIC:         %[[R:\w+]] = "graph.if"(%{{\w+}}) ({
// GENERIC-NEXT:      %[[A:\w+]] = "graph.add"(
// GENERIC-NEXT:      "graph.yield"(%[[A]]) : (tensor<2x3xf32>) -> ()
// GENERIC-NEXT:    }, {
// GENERIC-NEXT:      "graph.yield"(%{{\w+}}) : (tensor<2x3xf32>) -> ()
// GENERIC-NEXT:    }) {note = "kept"} : (tensor<i1>) -> tensor<2x3xf32>
func.func @choose(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = graph.if %c : tensor<i1> -> (tensor<2x3xf32>) {
    %a = graph.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    graph.yield %a : tensor<2x3xf32>
  } else {
    graph.yield %x : tensor<2x3xf32>
  } {note = "kept"}
  func.return %r : tensor<2x3xf32>
}

// -----

// The generic form parses to the same op.
// CHECK-LABEL: func.func @generic(
// CHECK:         = graph.if %{{\w+}} : tensor<1xi1> -> (tensor<4xf32>) {
// CHECK-NEXT:      graph.yield %{{\w+}} : tensor<4xf32>
// CHECK-NEXT:    } else {
func.func @generic(%c: tensor<1xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.if"(%c) ({
    "graph.yield"(%x) : (tensor<4xf32>) -> ()
  }, {
    %n = "graph.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "graph.yield"(%n) : (tensor<4xf32>) -> ()
  }) : (tensor<1xi1>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// The condition is one boolean.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.if: the condition must hold one i1, got tensor<2xi1>{{$}}
// CHECK:      = "graph.if"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.if: the condition must hold one i1, got tensor<2xi1>{{$}}
func.func @two_conditions(%c: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c : tensor<2xi1> -> (tensor<4xf32>) {
    graph.yield %x : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// Both branches yield the op's result types (static shapes).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.if: the else branch yields (tensor<2x2xf32>) but the op has results (tensor<4xf32>){{$}}
// CHECK:      = "graph.if"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.if: the else branch yields (tensor<2x2xf32>) but the op has results (tensor<4xf32>){{$}}
func.func @else_type(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2x2xf32>) -> tensor<4xf32> {
  %r = graph.if %c : tensor<i1> -> (tensor<4xf32>) {
    graph.yield %x : tensor<4xf32>
  } else {
    graph.yield %y : tensor<2x2xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// graph.loop: its operands (trip count, condition, inits), the body with its arguments
// (iteration number, condition, loop-carried values) and the yields (next condition, next
// values).
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME:      %[[M:\w+]]: tensor<i64>, %[[C:\w+]]: tensor<i1>, %[[X:\w+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[R:\w+]] = graph.loop %[[M]], %[[C]], %[[X]] : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[I:\w+]]: tensor<i64>, %[[CI:\w+]]: tensor<i1>, %[[V:\w+]]: tensor<4xf32>):
// CHECK-NEXT:      %[[A:\w+]] = graph.add %[[V]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      graph.yield %[[CI]], %[[A]] : tensor<i1>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @accumulate(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    %a = graph.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %ci, %a : tensor<i1>, tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// The body yields the next condition first, then one value per loop-carried value.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.loop: the body yields (tensor<4xf32>); it must yield the next condition (one i1) and the loop-carried values (tensor<4xf32>){{$}}
// CHECK:      = "graph.loop"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.loop: the body yields (tensor<4xf32>); it must yield the next condition (one i1) and the loop-carried values (tensor<4xf32>){{$}}
func.func @no_condition(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    graph.yield %v : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
