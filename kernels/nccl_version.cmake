# The NCCL version check of kernels/CMakeLists.txt, in its own file so that a test can run it on
# made-up headers (tests/kernels/nccl_version_test.cmake, `cmake -P`).
#
# moesim_nccl_version(<nccl.h> <version-var> <ok-var> <message-var>) reads NCCL_MAJOR,
# NCCL_MINOR and NCCL_PATCH from the header and sets <version-var> to "X.Y.Z" ("unknown" when
# the header has none), <ok-var> to whether it is at least MOESIM_NCCL_MINIMUM, and
# <message-var> to the one line the configure prints when it is not.

# ncclAlltoAll, which the uniform all-to-all captures call, first shipped in NCCL 2.28.3 (NCCL
# release notes, 2.28.3).
set(MOESIM_NCCL_MINIMUM 2.28.3)

function(moesim_nccl_version header version_var ok_var message_var)
  file(STRINGS "${header}" defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH)[ \t]+[0-9]+")
  set(parts "")
  foreach(part MAJOR MINOR PATCH)
    set(value "")
    foreach(line IN LISTS defines)
      if(line MATCHES "^#define NCCL_${part}[ \t]+([0-9]+)")
        set(value ${CMAKE_MATCH_1})
      endif()
    endforeach()
    list(APPEND parts "${value}")
  endforeach()
  list(JOIN parts "." version)
  if(version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$" AND NOT version VERSION_LESS MOESIM_NCCL_MINIMUM)
    set(${version_var} ${version} PARENT_SCOPE)
    set(${ok_var} TRUE PARENT_SCOPE)
    set(${message_var} "" PARENT_SCOPE)
    return()
  endif()
  if(NOT version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
    set(version unknown)
    set(what "NCCL of unknown version (${header} defines no NCCL_MAJOR/MINOR/PATCH)")
  else()
    set(what "NCCL ${version} (${header}) is older than ${MOESIM_NCCL_MINIMUM}")
  endif()
  set(${version_var} ${version} PARENT_SCOPE)
  set(${ok_var} FALSE PARENT_SCOPE)
  set(${message_var}
      "moesim: ${what}, which the NCCL all-to-all bench needs (ncclAlltoAll): it is left out; the GEMM benches, moesim and tools/calibrate-gpu.sh build without it (install NCCL >= ${MOESIM_NCCL_MINIMUM} and reconfigure for all-to-all captures)"
      PARENT_SCOPE)
endfunction()
