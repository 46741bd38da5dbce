// One case per verifier error of the loop dialect, each pinned to its exact message.
//
// With --verify-diagnostics, xDSL 0.75 prints for a chunk that fails to verify: the message,
// then the chunk in generic form with the failing op underlined (^^^---) and the message
// repeated beneath it as "| Operation does not verify: <message>". A chunk that fails to
// parse prints only the message. Every chunk after the first starts with the separator line;
// the exit code is 0, so each case checks its own separator and message.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A step below 1.
// CHECK:      {{^}}loop.for: step must be positive, got 0{{$}}
// CHECK:      "loop.for"() <{lower = 0 : i64, upper = 8 : i64, step = 0 : i64}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: step must be positive, got 0{{$}}
func.func @step() {
  loop.for %i = 0 to 8 step 0 {
  }
  func.return
}

// -----

// A negative step.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: step must be positive, got -2{{$}}
// CHECK:      "loop.for"() <{lower = 0 : i64, upper = 8 : i64, step = -2 : i64}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: step must be positive, got -2{{$}}
func.func @negative_step() {
  loop.for %i = 0 to 8 step -2 {
  }
  func.return
}

// -----

// The lower bound above the upper (an empty range is written lower == upper).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: lower bound 8 exceeds upper bound 4{{$}}
// CHECK:      "loop.for"() <{lower = 8 : i64, upper = 4 : i64, step = 1 : i64}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: lower bound 8 exceeds upper bound 4{{$}}
func.func @bounds() {
  loop.for %i = 8 to 4 step 1 {
  }
  func.return
}

// -----

// Body arguments that are not (index, iter_args' types...) (only the generic form can say it).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: body arguments must be the index followed by the iter_args' types{{$}}
// CHECK:      = "loop.for"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: body arguments must be the index followed by the iter_args' types{{$}}
func.func @body_args(%x: f32) -> f32 {
  %r = "loop.for"(%x) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: index, %a: i64):
    "loop.yield"(%x) : (f32) -> ()
  }) : (f32) -> f32
  func.return %r : f32
}

// -----

// A loop.yield of more values than there are iter_args.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: body must end in loop.yield of 1 values matching iter_args{{$}}
// CHECK:      = "loop.for"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: body must end in loop.yield of 1 values matching iter_args{{$}}
func.func @yield_count(%x: f32) -> f32 {
  %r = loop.for %i = 0 to 4 step 1 iter_args(%a = %x) -> (f32) {
    loop.yield %a, %a : f32, f32
  }
  func.return %r : f32
}

// -----

// A loop without iter_args yields nothing.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: body must end in loop.yield of 0 values matching iter_args{{$}}
// CHECK:      "loop.for"() <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: body must end in loop.yield of 0 values matching iter_args{{$}}
func.func @yield_without_iter_args(%x: f32) {
  loop.for %i = 0 to 4 step 1 {
    loop.yield %x : f32
  }
  func.return
}

// -----

// A loop.yield whose types differ from the iter_args'.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.for: body must end in loop.yield of 1 values matching iter_args{{$}}
// CHECK:      = "loop.for"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.for: body must end in loop.yield of 1 values matching iter_args{{$}}
func.func @yield_type(%x: f32, %y: i64) -> f32 {
  %r = loop.for %i = 0 to 4 step 1 iter_args(%a = %x) -> (f32) {
    loop.yield %y : i64
  }
  func.return %r : f32
}

// -----

// loop.if has no results: its loop.yield is empty.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.if: body must end in an empty loop.yield{{$}}
// CHECK:      "loop.if"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.if: body must end in an empty loop.yield{{$}}
func.func @if_yield(%c: i1, %x: f32) {
  loop.if %c {
    loop.yield %x : f32
  }
  func.return
}

// -----

// loop.load takes one index per dimension.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.load: 1 indices for a rank-2 buffer{{$}}
// CHECK:      = "loop.load"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.load: 1 indices for a rank-2 buffer{{$}}
func.func @load_index_count(%m: memref<4x8xf32>, %i: index) -> f32 {
  %v = loop.load %m[%i] : memref<4x8xf32> -> f32
  func.return %v : f32
}

// -----

// loop.load's result is the buffer's element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.load: result must be the element type f32{{$}}
// CHECK:      = "loop.load"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.load: result must be the element type f32{{$}}
func.func @load_type(%m: memref<4x8xf32>, %i: index) -> f64 {
  %v = loop.load %m[%i, %i] : memref<4x8xf32> -> f64
  func.return %v : f64
}

// -----

// loop.store takes one index per dimension (none for rank 0).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.store: 1 indices for a rank-0 buffer{{$}}
// CHECK:      "loop.store"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.store: 1 indices for a rank-0 buffer{{$}}
func.func @store_index_count(%m: memref<f32>, %i: index, %x: f32) {
  loop.store %x, %m[%i] : f32, memref<f32>
  func.return
}

// -----

// loop.store's value has the buffer's element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.store: value of type i64 into a buffer of f32{{$}}
// CHECK:      "loop.store"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.store: value of type i64 into a buffer of f32{{$}}
func.func @store_type(%m: memref<4x8xf32>, %i: index, %x: i64) {
  loop.store %x, %m[%i, %i] : i64, memref<4x8xf32>
  func.return
}

// -----

// loop.vload takes one index per dimension.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vload: 1 indices for a rank-2 buffer{{$}}
// CHECK:      = "loop.vload"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vload: 1 indices for a rank-2 buffer{{$}}
func.func @vload_index_count(%m: memref<4x16xf32>, %i: index) -> vector<16xf32> {
  %v = loop.vload %m[%i] : memref<4x16xf32> -> vector<16xf32>
  func.return %v : vector<16xf32>
}

// -----

// loop.vload's lanes have the buffer's element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vload: vector<16xf64> from a buffer of f32{{$}}
// CHECK:      = "loop.vload"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vload: vector<16xf64> from a buffer of f32{{$}}
func.func @vload_type(%m: memref<4x16xf32>, %i: index) -> vector<16xf64> {
  %v = loop.vload %m[%i, %i] : memref<4x16xf32> -> vector<16xf64>
  func.return %v : vector<16xf64>
}

// -----

// loop.vstore takes one index per dimension.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vstore: 3 indices for a rank-2 buffer{{$}}
// CHECK:      "loop.vstore"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vstore: 3 indices for a rank-2 buffer{{$}}
func.func @vstore_index_count(%m: memref<4x16xf32>, %i: index, %v: vector<16xf32>) {
  loop.vstore %v, %m[%i, %i, %i] : vector<16xf32>, memref<4x16xf32>
  func.return
}

// -----

// loop.vstore's lanes have the buffer's element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vstore: vector<16xi32> into a buffer of f32{{$}}
// CHECK:      "loop.vstore"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vstore: vector<16xi32> into a buffer of f32{{$}}
func.func @vstore_type(%m: memref<4x16xf32>, %i: index, %v: vector<16xi32>) {
  loop.vstore %v, %m[%i, %i] : vector<16xi32>, memref<4x16xf32>
  func.return
}

// -----

// loop.broadcast's lanes have the scalar's type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.broadcast: f32 into lanes of f64{{$}}
// CHECK:      = "loop.broadcast"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.broadcast: f32 into lanes of f64{{$}}
func.func @broadcast(%x: f32) -> vector<16xf64> {
  %v = loop.broadcast %x : f32 -> vector<16xf64>
  func.return %v : vector<16xf64>
}

// -----

// loop.vshuffle takes 1-d vectors (a multi-dimensional vector has no single lane order).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: operands must be a 1-d vector, got vector<4x4xf32>{{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: operands must be a 1-d vector, got vector<4x4xf32>{{$}}
func.func @vshuffle_operands_2d(%a: vector<4x4xf32>) -> vector<4xf32> {
  %r = loop.vshuffle %a, %a [0, 1, 2, 3] : vector<4x4xf32> -> vector<4xf32>
  func.return %r : vector<4xf32>
}

// -----

// ... and makes one.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: result must be a 1-d vector, got vector<2x2xf32>{{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: result must be a 1-d vector, got vector<2x2xf32>{{$}}
func.func @vshuffle_result_2d(%a: vector<4xf32>) -> vector<2x2xf32> {
  %r = loop.vshuffle %a, %a [0, 1, 2, 3] : vector<4xf32> -> vector<2x2xf32>
  func.return %r : vector<2x2xf32>
}

// -----

// An empty mask makes no vector (LLVM has no zero-lane vectors).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: the mask is empty (a result needs lanes){{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: the mask is empty (a result needs lanes){{$}}
func.func @vshuffle_empty_mask(%a: vector<4xf32>) -> vector<0xf32> {
  %r = loop.vshuffle %a, %a [] : vector<4xf32> -> vector<0xf32>
  func.return %r : vector<0xf32>
}

// -----

// The result has one lane per mask entry ...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: a mask of 4 lanes of vector<16xf32> makes vector<4xf32>, not vector<8xf32>{{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: a mask of 4 lanes of vector<16xf32> makes vector<4xf32>, not vector<8xf32>{{$}}
func.func @vshuffle_result_lanes(%a: vector<16xf32>, %b: vector<16xf32>) -> vector<8xf32> {
  %r = loop.vshuffle %a, %b [0, 16, 1, 17] : vector<16xf32> -> vector<8xf32>
  func.return %r : vector<8xf32>
}

// -----

// ... of the operands' element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: a mask of 4 lanes of vector<4xf32> makes vector<4xf32>, not vector<4xi32>{{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: a mask of 4 lanes of vector<4xf32> makes vector<4xf32>, not vector<4xi32>{{$}}
func.func @vshuffle_result_element(%a: vector<4xf32>) -> vector<4xi32> {
  %r = loop.vshuffle %a, %a [0, 4, 1, 5] : vector<4xf32> -> vector<4xi32>
  func.return %r : vector<4xi32>
}

// -----

// A mask lane indexes a's lanes followed by b's: 32 is one past two vector<16xf32>.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: mask lane 32 is out of range (two operands of vector<16xf32> have 32 lanes){{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: mask lane 32 is out of range (two operands of vector<16xf32> have 32 lanes){{$}}
func.func @vshuffle_mask_high(%a: vector<16xf32>, %b: vector<16xf32>) -> vector<4xf32> {
  %r = loop.vshuffle %a, %b [0, 31, 32, 1] : vector<16xf32> -> vector<4xf32>
  func.return %r : vector<4xf32>
}

// -----

// No negative lanes (LLVM's poison lane -1 included).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.vshuffle: mask lane -1 is out of range (two operands of vector<4xf32> have 8 lanes){{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.vshuffle: mask lane -1 is out of range (two operands of vector<4xf32> have 8 lanes){{$}}
func.func @vshuffle_mask_negative(%a: vector<4xf32>) -> vector<2xf32> {
  %r = loop.vshuffle %a, %a [-1, 0] : vector<4xf32> -> vector<2xf32>
  func.return %r : vector<2xf32>
}

// -----

// Both operands have one type (xDSL's constraint variable says so, in its words).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}operand 'rhs' at position 1 does not verify:{{$}}
// CHECK-NEXT: {{^}}attribute vector<4xf32> expected from variable 'T', but got vector<8xf32>{{$}}
// CHECK:      = "loop.vshuffle"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: operand 'rhs' at position 1 does not verify:{{$}}
func.func @vshuffle_operand_types(%a: vector<4xf32>, %b: vector<8xf32>) -> vector<2xf32> {
  %r = "loop.vshuffle"(%a, %b) <{mask = array<i32: 0, 1>}> : (vector<4xf32>, vector<8xf32>) -> vector<2xf32>
  func.return %r : vector<2xf32>
}

// -----

// loop.copy copies between buffers of one type: not of another shape...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.copy: source memref<4xf32> and target memref<2x2xf32> differ{{$}}
// CHECK:      "loop.copy"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.copy: source memref<4xf32> and target memref<2x2xf32> differ{{$}}
func.func @copy_shape(%a: memref<4xf32>, %b: memref<2x2xf32>) {
  loop.copy %a, %b : memref<4xf32>, memref<2x2xf32>
  func.return
}

// -----

// ... nor of another element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.copy: source memref<4xf32> and target memref<4xi32> differ{{$}}
// CHECK:      "loop.copy"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.copy: source memref<4xf32> and target memref<4xi32> differ{{$}}
func.func @copy_element_type(%a: memref<4xf32>, %b: memref<4xi32>) {
  loop.copy %a, %b : memref<4xf32>, memref<4xi32>
  func.return
}

// -----

// loop.constant checks its value against the buffer like graph.constant does.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.constant: value has type tensor<2xf32> but the result is memref<4x4xi64>{{$}}
// CHECK:      = "loop.constant"()
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: loop.constant: value has type tensor<2xf32> but the result is memref<4x4xi64>{{$}}
func.func @constant_type() {
  %k = loop.constant dense<1.0> : tensor<2xf32> : memref<4x4xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.constant: splat of f32 for elements of i1{{$}}
func.func @constant_splat_type() {
  %k = loop.constant #graph.splat<1.0 : f32> : memref<4xi1>
  func.return
}

// -----

// A set size is a name, not an expression.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}loop.set_size: '2*nz' is not a size's name{{$}}
func.func @set_expression() {
  %c = arith.constant 0 : index
  loop.set_size "2*nz" = %c at most "8"
  func.return
}

// -----

// loop.view: a view keeps the element type...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.view: a view of f32 as i32{{$}}
func.func @view_element_type(%a: memref<16xf32>) {
  %v = loop.view %a[0] : memref<16xf32> to memref<16xi32>
  func.return
}

// -----

// ... starts at a multiple of 64 bytes (every buffer's alignment)...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.view: start 4 is not a multiple of 64 bytes{{$}}
func.func @view_alignment(%a: memref<64xf32>) {
  %v = loop.view %a[4] : memref<64xf32> to memref<16xf32>
  func.return
}

// -----

// ... stays inside its buffer...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.view: elements 48..80 of a buffer of 64{{$}}
func.func @view_bounds(%a: memref<64xf32>) {
  %v = loop.view %a[48] : memref<64xf32> to memref<2x16xf32>
  func.return
}

// -----

// ... and views a buffer of run-time size from its start only.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.view: a buffer of run-time size is viewed from element 0 only{{$}}
func.func @view_symbolic(%a: memref<?x16xf32, #graph.dims<"n">>) {
  %v = loop.view %a[16] : memref<?x16xf32, #graph.dims<"n">> to memref<16xf32>
  func.return
}

// -----

// loop.sections has two sections or more...
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.sections: needs at least two sections{{$}}
func.func @one_section(%a: memref<4xf32>, %b: memref<4xf32>) {
  loop.sections {
    loop.copy %a, %b : memref<4xf32>, memref<4xf32>
  }
  func.return
}

// -----

// ... each ending in an empty loop.yield.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}loop.sections: body must end in an empty loop.yield{{$}}
func.func @section_yields(%x: index) {
  "loop.sections"() ({
    "loop.yield"() : () -> ()
  }, {
    "loop.yield"(%x) : (index) -> ()
  }) : () -> ()
  func.return
}

// -----

// A loop with iter_args whose body has no terminator is rejected by xDSL while parsing the
// region (a message only, no IR).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}Operation arith.addf terminates block in single-block region but is not a terminator{{$}}
// CHECK-NOT:  {{.}}
func.func @yield_missing(%x: f32) -> f32 {
  %r = loop.for %i = 0 to 4 step 1 iter_args(%a = %x) -> (f32) {
    %b = arith.addf %a, %a : f32
  }
  func.return %r : f32
}
