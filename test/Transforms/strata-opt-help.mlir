// strata-opt --help lists every Strata pass (from Passes.td) and named pipeline (from
// Pipelines.cpp): the CHECK lines are generated from those files, not kept by hand.
// RUN: %python %S/strata_opt_help_checks.py --tblgen llvm-tblgen -I %mlir_include_dir \
// RUN:   -I %strata_src_root %strata_src_root/transforms/Passes.td \
// RUN:   %strata_src_root/transforms/Pipelines.cpp > %t.checks
// RUN: strata-opt --help | FileCheck %t.checks
// RUN: strata-opt --help | FileCheck %s
// CHECK: Available Dialects: {{.*}}linalg{{.*}}math{{.*}}strata{{.*}}tensor
