# Install rules and the CMake package `softik` (docs/embedding.md), included by CMakeLists.txt
# after the targets exist. `cmake --install <build> --prefix <prefix>` gives
#   <prefix>/include/softik/...                    the public headers (the whole tree)
#   <prefix>/lib/libsoftik.a or libsoftik.so.*     the library (SOFTIK_SHARED)
#   <prefix>/bin/softik                            the command-line program
#   <prefix>/share/softik/materials.yaml           the materials library (docs/materials.md)
#   <prefix>/lib/cmake/softik/                     softikConfig.cmake, softikConfigVersion.cmake,
#                                                  softikTargets*.cmake, softikCholmod.cmake
# (lib is CMAKE_INSTALL_LIBDIR: lib64 or lib/<multiarch> on some systems).
include(CMakePackageConfigHelpers)

set(SOFTIK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/softik"
    CACHE STRING "Where the CMake package files of softik go, relative to the install prefix")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/softik" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# The materials library's data file (also compiled into the library): for reading and citing.
install(FILES "${PROJECT_SOURCE_DIR}/data/materials.yaml" DESTINATION "${CMAKE_INSTALL_DATADIR}/softik")

# The installed CLI finds a shared libsoftik next to it (../lib), wherever the prefix is moved.
if(SOFTIK_SHARED)
  file(RELATIVE_PATH _softik_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  set_target_properties(softik_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_softik_bin_to_lib}")
endif()
# softik::cli: consumers can run scenes from their build (add_test(COMMAND softik::cli run ...)).
set_target_properties(softik_cli PROPERTIES EXPORT_NAME cli)

set(_softik_install_targets softik softik_cli)
if(TARGET softik_cuda)
  list(APPEND _softik_install_targets softik_cuda)
endif()
install(TARGETS ${_softik_install_targets} EXPORT softikTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(EXPORT softikTargets NAMESPACE softik:: FILE softikTargets.cmake DESTINATION "${SOFTIK_INSTALL_CMAKEDIR}")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/softikConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/softikConfig.cmake"
                              INSTALL_DESTINATION "${SOFTIK_INSTALL_CMAKEDIR}")
# Which installed versions satisfy find_package(softik <version>): while the major version is 0
# the API may change from one minor version to the next (0.1 -> 0.2), so only the same minor
# version is accepted; from 1.0 on, a change that breaks the API raises the major version and
# any newer minor version of the same major is accepted. AnyNewerVersion would promise that a
# 2.x still builds code written against 1.x, which no one checks. SOFTIK_COMPAT_VERSION (the
# soname) follows the same rule.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_softik_compatibility SameMinorVersion)
else()
  set(_softik_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/softikConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY ${_softik_compatibility})
install(FILES "${PROJECT_BINARY_DIR}/softikConfig.cmake" "${PROJECT_BINARY_DIR}/softikConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/softikCholmod.cmake"
        DESTINATION "${SOFTIK_INSTALL_CMAKEDIR}")
