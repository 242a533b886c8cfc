# The configure-time NCCL version check (kernels/nccl_version.cmake) on made-up headers:
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P tests/kernels/nccl_version_test.cmake
# Fails (FATAL_ERROR, non-zero exit) on the first wrong answer. Registered with ctest as
# kernels_nccl_version_check.
include(${SOURCE_DIR}/kernels/nccl_version.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})

function(expect header_text want_version want_ok want_message)
  set(h ${WORK_DIR}/nccl.h)
  file(WRITE ${h} "${header_text}")
  moesim_nccl_version(${h} version ok message)
  string(REPLACE "@H@" "${h}" want_message "${want_message}")
  if(NOT version STREQUAL want_version OR NOT ok STREQUAL want_ok OR NOT message STREQUAL want_message)
    message(FATAL_ERROR "nccl.h:\n${header_text}\ngot version '${version}', ok '${ok}', message '${message}'\n"
                        "want version '${want_version}', ok '${want_ok}', message '${want_message}'")
  endif()
endfunction()

set(tail ", which the NCCL all-to-all bench needs (ncclAlltoAll): it is left out; the GEMM benches, moesim and tools/calibrate-gpu.sh build without it (install NCCL >= 2.28.3 and reconfigure for all-to-all captures)")
# The header of the NCCL this project builds with (2.28.9) and the first with ncclAlltoAll.
expect("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n#define NCCL_SUFFIX \"\"\n" "2.28.9" TRUE "")
expect("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 3\n" "2.28.3" TRUE "")
expect("#define NCCL_MAJOR 3\n#define NCCL_MINOR 0\n#define NCCL_PATCH 0\n" "3.0.0" TRUE "")
# Older: the bench is left out, with one line saying why.
expect("#define NCCL_MAJOR 2\n#define NCCL_MINOR 27\n#define NCCL_PATCH 7\n" "2.27.7" FALSE
       "moesim: NCCL 2.27.7 (@H@) is older than 2.28.3${tail}")
expect("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 2\n" "2.28.2" FALSE
       "moesim: NCCL 2.28.2 (@H@) is older than 2.28.3${tail}")
# Versions compare as numbers, not text: 2.9.x is older than 2.28.x.
expect("#define NCCL_MAJOR 2\n#define NCCL_MINOR 9\n#define NCCL_PATCH 9\n" "2.9.9" FALSE
       "moesim: NCCL 2.9.9 (@H@) is older than 2.28.3${tail}")
expect("/* no version here */\n" "unknown" FALSE
       "moesim: NCCL of unknown version (@H@ defines no NCCL_MAJOR/MINOR/PATCH)${tail}")
message(STATUS "nccl version check: 7 headers as expected")
