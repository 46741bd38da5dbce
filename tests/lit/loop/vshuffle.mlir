// loop.vshuffle in its custom form and in the generic form, printed back exactly: a pick of
// lanes from both operands, a join of two vectors into one twice as long, a reversal of one
// operand (both operands the same value), integer lanes, and a discardable attribute. The
// mask is an i32 dense array property, printed as a bracketed list in the custom form.
// Parse -> print, print -> parse -> print and generic form in -> custom form out must agree
// (CHECK); the generic printer prints what the generic parser reads back (GENERIC).
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @custom(
// CHECK-SAME:    %[[A:\w+]]: vector<16xf32>, %[[B:\w+]]: vector<16xf32>, %[[I:\w+]]: vector<4xi64>)
// CHECK-NEXT:    %[[PICK:\w+]] = loop.vshuffle %[[A]], %[[B]] [0, 16, 1, 17] : vector<16xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[JOIN:\w+]] = loop.vshuffle %[[A]], %[[B]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] {note} : vector<16xf32> -> vector<32xf32>
// CHECK-NEXT:    %[[REV:\w+]] = loop.vshuffle %[[I]], %[[I]] [3, 2, 1, 0] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    func.return %[[PICK]], %[[JOIN]], %[[REV]] : vector<4xf32>, vector<32xf32>, vector<4xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "custom"
// GENERIC:         ^bb0(%[[A:\w+]]: vector<16xf32>, %[[B:\w+]]: vector<16xf32>, %[[I:\w+]]: vector<4xi64>):
// GENERIC-NEXT:    %[[PICK:\w+]] = "loop.vshuffle"(%[[A]], %[[B]]) <{mask = array<i32: 0, 16, 1, 17>}> : (vector<16xf32>, vector<16xf32>) -> vector<4xf32>
// GENERIC-NEXT:    %[[JOIN:\w+]] = "loop.vshuffle"(%[[A]], %[[B]]) <{mask = array<i32: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31>}> {note} : (vector<16xf32>, vector<16xf32>) -> vector<32xf32>
// GENERIC-NEXT:    %[[REV:\w+]] = "loop.vshuffle"(%[[I]], %[[I]]) <{mask = array<i32: 3, 2, 1, 0>}> : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
// GENERIC-NEXT:    "func.return"(%[[PICK]], %[[JOIN]], %[[REV]])
func.func @custom(%a: vector<16xf32>, %b: vector<16xf32>, %i: vector<4xi64>) -> (vector<4xf32>, vector<32xf32>, vector<4xi64>) {
  %pick = loop.vshuffle %a, %b [0, 16, 1, 17] : vector<16xf32> -> vector<4xf32>
  %join = loop.vshuffle %a, %b [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] {note} : vector<16xf32> -> vector<32xf32>
  %rev = loop.vshuffle %i, %i [3, 2, 1, 0] : vector<4xi64> -> vector<4xi64>
  func.return %pick, %join, %rev : vector<4xf32>, vector<32xf32>, vector<4xi64>
}

// The same op written in the generic form: a half of one f64 vector (a split, as
// loop-vectorize-transpose takes a tile apart) and an i1 interleave.
// CHECK-LABEL: func.func @generic(
// CHECK-SAME:    %[[V:\w+]]: vector<8xf64>, %[[M:\w+]]: vector<4xi1>, %[[N:\w+]]: vector<4xi1>)
// CHECK-NEXT:    %[[HIGH:\w+]] = loop.vshuffle %[[V]], %[[V]] [4, 5, 6, 7] : vector<8xf64> -> vector<4xf64>
// CHECK-NEXT:    %[[ZIP:\w+]] = loop.vshuffle %[[M]], %[[N]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xi1> -> vector<8xi1>
// CHECK-NEXT:    func.return %[[HIGH]], %[[ZIP]] : vector<4xf64>, vector<8xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "generic"
// GENERIC:         ^bb0(%[[V:\w+]]: vector<8xf64>, %[[M:\w+]]: vector<4xi1>, %[[N:\w+]]: vector<4xi1>):
// GENERIC-NEXT:    %[[HIGH:\w+]] = "loop.vshuffle"(%[[V]], %[[V]]) <{mask = array<i32: 4, 5, 6, 7>}> : (vector<8xf64>, vector<8xf64>) -> vector<4xf64>
// GENERIC-NEXT:    %[[ZIP:\w+]] = "loop.vshuffle"(%[[M]], %[[N]]) <{mask = array<i32: 0, 4, 1, 5, 2, 6, 3, 7>}> : (vector<4xi1>, vector<4xi1>) -> vector<8xi1>
// GENERIC-NEXT:    "func.return"(%[[HIGH]], %[[ZIP]])
"func.func"() <{sym_name = "generic", function_type = (vector<8xf64>, vector<4xi1>, vector<4xi1>) -> (vector<4xf64>, vector<8xi1>)}> ({
^bb0(%v: vector<8xf64>, %m: vector<4xi1>, %n: vector<4xi1>):
  %high = "loop.vshuffle"(%v, %v) <{mask = array<i32: 4, 5, 6, 7>}> : (vector<8xf64>, vector<8xf64>) -> vector<4xf64>
  %zip = "loop.vshuffle"(%m, %n) <{mask = array<i32: 0, 4, 1, 5, 2, 6, 3, 7>}> : (vector<4xi1>, vector<4xi1>) -> vector<8xi1>
  "func.return"(%high, %zip) : (vector<4xf64>, vector<8xi1>) -> ()
}) : () -> ()
