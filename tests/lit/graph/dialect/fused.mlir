// graph.fused and graph.yield: the custom form prints back exactly, the generic form parses to
// the same op, and each verifier error of the region op is pinned to its exact message.
//
// The first chunk is valid: once in the custom form, once in the generic form (both print in
// the custom form), and printed generically by the second run. Every later chunk fails to
// verify; with --verify-diagnostics, xDSL 0.75 prints the message, the chunk in generic form
// with the failing op underlined, and "| Operation does not verify: <message>".
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @conv_relu(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>, %[[W:\w+]]: tensor<3x2x3x3xf32>, %[[B:\w+]]: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:    %[[R:\w+]] = graph.fused "conv_relu" (%[[X]], %[[W]], %[[B]]) {note = "kept"} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:\w+]]: tensor<1x2x4x4xf32>, %[[C:\w+]]: tensor<3x2x3x3xf32>, %[[D:\w+]]: tensor<3xf32>):
// CHECK-NEXT:      %[[CONV:\w+]] = graph.conv %[[A]], %[[C]], %[[D]] {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:      %[[RELU:\w+]] = graph.relu %[[CONV]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:      graph.yield %[[RELU]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "conv_relu"
// GENERIC:         %[[R:\w+]] = "graph.fused"(%{{\w+}}, %{{\w+}}, %{{\w+}}) <{name = "conv_relu"}> ({
// GENERIC-NEXT:    ^bb0(%[[A:\w+]]: tensor<1x2x4x4xf32>, %[[C:\w+]]: tensor<3x2x3x3xf32>, %[[D:\w+]]: tensor<3xf32>):
// GENERIC-NEXT:      %[[CONV:\w+]] = "graph.conv"(%[[A]], %[[C]], %[[D]]) <{pads = array<i64: 1, 1, 1, 1>}>
// GENERIC-NEXT:      %[[RELU:\w+]] = "graph.relu"(%[[CONV]])
// GENERIC-NEXT:      "graph.yield"(%[[RELU]]) : (tensor<1x3x4x4xf32>) -> ()
// GENERIC-NEXT:    }) {note = "kept"} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
func.func @conv_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %r = graph.fused "conv_relu" (%x, %w, %b) {note = "kept"} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %c: tensor<3x2x3x3xf32>, %d: tensor<3xf32>):
    %0 = graph.conv %a, %c, %d {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
    %1 = graph.relu %0 : tensor<1x3x4x4xf32>
    graph.yield %1 : tensor<1x3x4x4xf32>
  }
  func.return %r : tensor<1x3x4x4xf32>
}

// Several results (a value the group passes on besides its last one) print in parentheses;
// the generic form parses to the same op.
// CHECK-LABEL: func.func @two_results(
// CHECK-SAME:      %[[X:\w+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[R:\w+]], %[[S:\w+]] = graph.fused "exp_neg" (%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:\w+]]: tensor<4xf32>):
// CHECK-NEXT:      %[[E:\w+]] = graph.exp %[[A]] : tensor<4xf32>
// CHECK-NEXT:      %[[N:\w+]] = graph.neg %[[E]] : tensor<4xf32>
// CHECK-NEXT:      graph.yield %[[E]], %[[N]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]], %[[S]] : tensor<4xf32>, tensor<4xf32>
func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = "graph.fused"(%x) <{name = "exp_neg"}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = "graph.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "graph.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    "graph.yield"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Operands and block arguments correspond one to one.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: 2 operands but the body's block has 1 argument; they must correspond one to one{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: 2 operands but the body's block has 1 argument; they must correspond one to one{{$}}
func.func @arity(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "relu" (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.relu %a : tensor<4xf32>
    graph.yield %0 : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: operand #0 is tensor<4xf32> but block argument #0 is tensor<2x2xf32>{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: operand #0 is tensor<4xf32> but block argument #0 is tensor<2x2xf32>{{$}}
func.func @arg_type(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %r = graph.fused "relu" (%x) : (tensor<4xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %0 = graph.relu %a : tensor<2x2xf32>
    graph.yield %0 : tensor<2x2xf32>
  }
  func.return %r : tensor<2x2xf32>
}

// -----

// graph.yield gives one value per result, of the result's type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: the body yields 2 values but the op has 1 result{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: the body yields 2 values but the op has 1 result{{$}}
func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.relu %a : tensor<4xf32>
    graph.yield %0, %a : tensor<4xf32>, tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: result #0 is declared tensor<4xf32> but the body yields tensor<4xi64>{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: result #0 is declared tensor<4xf32> but the body yields tensor<4xi64>{{$}}
func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "cast" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.cast %a : tensor<4xf32> to tensor<4xi64>
    graph.yield %0 : tensor<4xi64>
  }
  func.return %r : tensor<4xf32>
}

// -----

// The body holds graph compute ops only: no nested group, no constant, no other dialect.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: "inner" is nested inside "outer"; fused ops do not nest, merge their bodies instead{{$}}
// CHECK:      = "graph.fused"(%x) <{name = "outer"}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: "inner" is nested inside "outer"; fused ops do not nest, merge their bodies instead{{$}}
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "outer" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.fused "inner" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %1 = graph.relu %b : tensor<4xf32>
      graph.yield %1 : tensor<4xf32>
    }
    graph.yield %0 : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: the body may hold only graph compute ops, found graph.constant (keep constants outside and pass them in as operands){{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: the body may hold only graph compute ops, found graph.constant (keep constants outside and pass them in as operands){{$}}
func.func @constant_inside(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "add" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = graph.constant dense<1.0> : tensor<4xf32>
    %0 = graph.add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %0 : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: the body may hold only graph compute ops, found arith.constant{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: the body may hold only graph compute ops, found arith.constant{{$}}
func.func @other_dialect(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = arith.constant 1.0 : f32
    %0 = graph.relu %a : tensor<4xf32>
    graph.yield %0 : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// The body is isolated from above: what it reads comes in as an operand.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.fused: graph.add in the body uses a value defined outside the fused op; pass it in as an operand and use the block argument{{$}}
// CHECK:      = "graph.fused"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.fused: graph.add in the body uses a value defined outside the fused op; pass it in as an operand and use the block argument{{$}}
func.func @outside_value(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "add" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.add %a, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %0 : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// The body ends in graph.yield (xDSL's own terminator check reports it first).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}Operation graph.relu terminates block in single-block region but is not a terminator{{$}}
func.func @no_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.fused "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = graph.relu %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// graph.yield belongs to graph.fused and graph.if only.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.yield must be in the body of a graph.fused, graph.if or graph.loop{{$}}
// CHECK:      "graph.yield"(%x)
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.yield must be in the body of a graph.fused, graph.if or graph.loop{{$}}
func.func @stray_yield(%x: tensor<4xf32>) {
  graph.yield %x : tensor<4xf32>
}
