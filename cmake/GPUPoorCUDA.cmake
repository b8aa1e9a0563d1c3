# Locates ptxas: CUDA_HOME first, then /usr/local/cuda, then PATH.
set(_gpupoor_ptxas_hints)
if(DEFINED ENV{CUDA_HOME})
  list(APPEND _gpupoor_ptxas_hints "$ENV{CUDA_HOME}/bin")
endif()
list(APPEND _gpupoor_ptxas_hints "/usr/local/cuda/bin")
find_program(GPUPOOR_PTXAS ptxas HINTS ${_gpupoor_ptxas_hints})
if(GPUPOOR_PTXAS)
  message(STATUS "gpupoor: ptxas found at ${GPUPOOR_PTXAS}")
else()
  message(STATUS "gpupoor: ptxas not found (set CUDA_HOME or add it to PATH); "
                 "cubin tests will be reported unsupported")
endif()
