# FABRICSIM_CUDA: AUTO enables CUDA when nvcc is found (on these machines it lives in
# /usr/local/cuda/bin, target sm_90); ON requires it; OFF never looks.
set(FABRICSIM_HAVE_CUDA OFF)
if(NOT FABRICSIM_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(FABRICSIM_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
    if(FABRICSIM_NVCC)
      set(CMAKE_CUDA_COMPILER ${FABRICSIM_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Before enable_language: it fills CMAKE_CUDA_ARCHITECTURES with nvcc's default (75 for
    # CUDA 13) when the variable is unset, and a later default would never apply.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no CUDA20 dialect for nvcc
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(FABRICSIM_HAVE_CUDA ON)
  elseif(FABRICSIM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "FABRICSIM_CUDA=ON but no CUDA compiler was found "
                        "(looked for nvcc on PATH and in /usr/local/cuda/bin)")
  endif()
endif()
message(STATUS "fabricsim: CUDA backend ${FABRICSIM_HAVE_CUDA} (FABRICSIM_CUDA=${FABRICSIM_CUDA})")
