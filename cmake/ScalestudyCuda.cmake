# The GPU build's dependencies, and the CUDA compile check that keeps GPU code compiling in
# CPU-only CI.
#
# scalestudy_find_cuda_stack(): with SCALESTUDY_CUDA=ON, finds the CUDA toolkit (runtime
# and the header-only NVTX3), NCCL, and insists that the LibTorch found earlier was built
# with CUDA (the one inside a PyTorch wheel: -DTorch_DIR=$(python3 -c 'import torch;
# print(torch.utils.cmake_prefix_path)')/Torch).
#
# scalestudy_add_cuda_compile_check(TARGET SOURCES ...): without SCALESTUDY_CUDA, compiles
# (never links) the given sources against Debian's CPU LibTorch headers, the toolkit's
# headers and harness/compat/cuda_stub (the one generated c10 header the CPU build lacks).
include_guard(GLOBAL)

set(_scalestudy_cuda_runtime_header /usr/local/cuda/include/cuda_runtime.h)
if(DEFINED ENV{CUDA_HOME})
  set(_scalestudy_cuda_runtime_header $ENV{CUDA_HOME}/include/cuda_runtime.h)
endif()
set(_scalestudy_compile_check_default OFF)
if(EXISTS ${_scalestudy_cuda_runtime_header})
  set(_scalestudy_compile_check_default ON)
endif()
option(SCALESTUDY_CUDA_COMPILE_CHECK
  "Without SCALESTUDY_CUDA, compile (not link) the CUDA sources when a toolkit is present"
  ${_scalestudy_compile_check_default})

macro(scalestudy_find_cuda_stack)
  find_package(CUDAToolkit REQUIRED)
  find_package(NCCL REQUIRED)
  if(NOT TARGET torch_cuda AND NOT TORCH_CUDA_LIBRARIES)
    message(FATAL_ERROR
      "SCALESTUDY_CUDA=ON needs a LibTorch built with CUDA, but Torch_DIR=${Torch_DIR} is "
      "CPU-only. Point it at a PyTorch wheel: -DTorch_DIR=$(python3 -c 'import torch; "
      "print(torch.utils.cmake_prefix_path)')/Torch")
  endif()
  message(STATUS "CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_INCLUDE_DIRS}; "
                 "NCCL ${NCCL_VERSION} at ${NCCL_LIBRARY}")
endmacro()

function(scalestudy_add_cuda_compile_check target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  get_filename_component(_cuda_include ${_scalestudy_cuda_runtime_header} DIRECTORY)
  add_library(${target} OBJECT ${ARG_SOURCES})
  # Usage requirements only: an OBJECT library compiles, it never links.
  target_link_libraries(${target} PRIVATE scalestudy_core ${TORCH_LIBRARIES})
  target_include_directories(${target} PRIVATE
    ${PROJECT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/harness/compat/cuda_stub
    ${_cuda_include})
  target_compile_definitions(${target} PRIVATE SCALESTUDY_WITH_CUDA USE_C10D_NCCL)
  message(STATUS "CUDA compile check: ${target} against ${_cuda_include}")
endfunction()
