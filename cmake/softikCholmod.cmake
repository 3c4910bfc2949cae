# SuiteSparse CHOLMOD as the imported target SuiteSparse::CHOLMOD (the name SuiteSparse 7's own
# CMake package gives it), so that libsoftik links a target and the exported link interface of
# a static libsoftik names that target instead of this machine's library path. Included by the
# build (CMakeLists.txt, which also needs cholmod.h: softik_CHOLMOD_NEED_HEADERS) and by the
# installed softikConfig.cmake (a consumer of a static libsoftik links CHOLMOD; it needs only
# the library). Sets softik_CHOLMOD_FOUND. A SuiteSparse::CHOLMOD defined before (by
# find_package(CHOLMOD) from SuiteSparse 7) is used as it is.
if(TARGET SuiteSparse::CHOLMOD)
  set(softik_CHOLMOD_FOUND TRUE)
  return()
endif()
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY cholmod)
set(softik_CHOLMOD_FOUND FALSE)
if(CHOLMOD_LIBRARY AND (CHOLMOD_INCLUDE_DIR OR NOT softik_CHOLMOD_NEED_HEADERS))
  add_library(SuiteSparse::CHOLMOD UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::CHOLMOD PROPERTIES IMPORTED_LOCATION "${CHOLMOD_LIBRARY}")
  if(CHOLMOD_INCLUDE_DIR)
    set_target_properties(SuiteSparse::CHOLMOD PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}")
  endif()
  set(softik_CHOLMOD_FOUND TRUE)
endif()
