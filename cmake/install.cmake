# install.cmake — `cmake --install <build> --prefix <dir>` lays out
#
#   <dir>/bin/tilepp                          the translator
#   <dir>/bin/tilepp-tune                     offline tuning (tile_tune_entry_<kernel>)
#   <dir>/include/tilepp/*.h, *.cuh           tile.h, check.h, bench.h and the device runtime
#   <dir>/lib/cmake/tilepp/                   the CMake package:
#       tileppConfig.cmake, tileppConfigVersion.cmake,
#       tileppTargets*.cmake (imported executable tilepp::tilepp and the
#       INTERFACE target tilepp::tile), tilepp.cmake (tile_add_kernels)
#   <dir>/lib/pkgconfig/tilepp.pc             for Make and other builds:
#       `pkg-config --cflags tilepp`, `pkg-config --variable=tilepp tilepp`
#
# so that a project with `find_package(tilepp REQUIRED)` (and <dir> on
# CMAKE_PREFIX_PATH) can call tile_add_kernels(). The layout is fixed, not
# taken from GNUInstallDirs: the translator finds its headers at
# <dir of tilepp>/../include, and the build tree mirrors it. Nothing in it
# names <dir>: the package and the .pc file find the prefix from where they
# are, so the tree may be moved after installation.

include(CMakePackageConfigHelpers)

set(TILEPP_INSTALL_BINDIR bin)
set(TILEPP_INSTALL_INCLUDEDIR include)
set(TILEPP_INSTALL_CMAKEDIR lib/cmake/tilepp)

# The translator and tilepp-tune. The translator's INSTALL_RPATH (set in
# tilepp/CMakeLists.txt) points at libclang, so the installed binary runs
# without LD_LIBRARY_PATH; tilepp-tune needs only libdl.
install(TARGETS tilepp tilepp-tune tilepp_tile EXPORT tileppTargets
  RUNTIME DESTINATION ${TILEPP_INSTALL_BINDIR})

# The public headers: whatever the build copied into <build>/include/tilepp.
install(DIRECTORY ${TILEPP_INCLUDE_DIR}/tilepp/
  DESTINATION ${TILEPP_INSTALL_INCLUDEDIR}/tilepp
  FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")

install(EXPORT tileppTargets
  NAMESPACE tilepp::
  DESTINATION ${TILEPP_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tileppConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tileppConfig.cmake
  INSTALL_DESTINATION ${TILEPP_INSTALL_CMAKEDIR}
  PATH_VARS TILEPP_INSTALL_INCLUDEDIR)
# 0.x: a minor release may change the language, so only the same minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/tileppConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${PROJECT_BINARY_DIR}/cmake/tileppConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/tileppConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/tilepp.cmake
  DESTINATION ${TILEPP_INSTALL_CMAKEDIR})

# pkg-config, relative to the .pc file's own directory (pkgconf and
# pkg-config >= 0.29 define pcfiledir), so a moved prefix still works.
configure_file(${PROJECT_SOURCE_DIR}/cmake/tilepp.pc.in ${PROJECT_BINARY_DIR}/cmake/tilepp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tilepp.pc DESTINATION lib/pkgconfig)
