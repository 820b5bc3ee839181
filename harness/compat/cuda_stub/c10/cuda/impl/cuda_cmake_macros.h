// Stand-in for the header a CUDA build of LibTorch generates and Debian's CPU build omits;
// only the CUDA compile check (SCALESTUDY_CUDA_COMPILE_CHECK) puts this folder on the path.
#pragma once
#define C10_CUDA_BUILD_SHARED_LIBS
