#===- runtime/tools/check_no_libm.cmake - no libm transcendentals ---------===//
#
# cmake -DNM=nm -DLIB=libplumb_runtime.a -P check_no_libm.cmake
# Fails if any object in LIB has an undefined reference to a libm
# transcendental (float, double or long double variants, and glibc's
# __*_finite aliases). sqrt/fma/fabs/floor-style exact operations are allowed.
#
#===----------------------------------------------------------------------===//
execute_process(COMMAND ${NM} -u ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
set(fns exp exp2 exp10 expm1 log log2 log10 log1p logb pow tanh tan sin cos sincos
    sinh cosh asin acos atan atan2 asinh acosh atanh erf erfc tgamma lgamma cbrt hypot)
set(bad "")
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^[ \t]*U[ \t]+" "" sym "${line}")
  string(STRIP "${sym}" sym)
  string(REGEX REPLACE "@.*$" "" sym "${sym}")
  foreach(f IN LISTS fns)
    if(sym MATCHES "^(__)?${f}(f|l)?(_finite)?$")
      list(APPEND bad "${sym}")
    endif()
  endforeach()
endforeach()
if(bad)
  list(REMOVE_DUPLICATES bad)
  message(FATAL_ERROR "plumb_runtime references libm transcendentals: ${bad}")
endif()
message(STATUS "plumb_runtime: no libm transcendental references")
