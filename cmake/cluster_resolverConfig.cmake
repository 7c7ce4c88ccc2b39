# CMake package config of cluster_resolver.h (installed by `make install`).
#
#   find_package(cluster_resolver REQUIRED)                   # cluster_resolver::cluster_resolver
#   find_package(cluster_resolver REQUIRED COMPONENTS curl)   # and cluster_resolver::curl
#
# cluster_resolver::cluster_resolver: the include directories of cluster_resolver.h and jsmn.h.
# cluster_resolver::curl: that, plus CLUSTER_RESOLVER_USE_CURL and CURL::libcurl (the bundled
# HTTP transport). Either way, define CLUSTER_RESOLVER_IMPLEMENTATION in one source file.
include(CMakeFindDependencyMacro)

# Relocatable: the prefix is three levels up from <prefix>/lib/cmake/cluster_resolver.
get_filename_component(_cres_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_cres_include_dir "${_cres_prefix}/include")
if(NOT EXISTS "${_cres_include_dir}/cluster_resolver.h")
  set(cluster_resolver_FOUND FALSE)
  set(cluster_resolver_NOT_FOUND_MESSAGE "cluster_resolver: ${_cres_include_dir}/cluster_resolver.h is missing")
  return()
endif()

set(_cres_want_curl FALSE)
foreach(_cres_comp IN LISTS cluster_resolver_FIND_COMPONENTS)
  if(_cres_comp STREQUAL "curl")
    if(cluster_resolver_FIND_REQUIRED_curl)
      find_dependency(CURL) # on failure: cluster_resolver not found, naming CURL, and return
    elseif(NOT TARGET CURL::libcurl)
      find_package(CURL QUIET)
    endif()
    if(TARGET CURL::libcurl)
      set(_cres_want_curl TRUE)
      set(cluster_resolver_curl_FOUND TRUE)
    else()
      set(cluster_resolver_curl_FOUND FALSE)
    endif()
  else()
    set(cluster_resolver_${_cres_comp}_FOUND FALSE)
    if(cluster_resolver_FIND_REQUIRED_${_cres_comp})
      set(cluster_resolver_FOUND FALSE)
      set(cluster_resolver_NOT_FOUND_MESSAGE "cluster_resolver: unknown component \"${_cres_comp}\" (the only component is curl)")
      return()
    endif()
  endif()
endforeach()

# jsmn (Debian libjsmn-dev) is a header of its own that cluster_resolver.h includes.
find_path(CLUSTER_RESOLVER_JSMN_INCLUDE_DIR jsmn.h
          DOC "Directory holding jsmn.h (Debian: libjsmn-dev), needed by cluster_resolver.h")
if(NOT CLUSTER_RESOLVER_JSMN_INCLUDE_DIR)
  set(cluster_resolver_FOUND FALSE)
  set(cluster_resolver_NOT_FOUND_MESSAGE "cluster_resolver: jsmn.h not found (install libjsmn-dev, or set CLUSTER_RESOLVER_JSMN_INCLUDE_DIR to the directory holding jsmn.h)")
  return()
endif()

if(NOT TARGET cluster_resolver::cluster_resolver)
  add_library(cluster_resolver::cluster_resolver INTERFACE IMPORTED)
  set_target_properties(cluster_resolver::cluster_resolver PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_cres_include_dir};${CLUSTER_RESOLVER_JSMN_INCLUDE_DIR}")
endif()
if(_cres_want_curl AND NOT TARGET cluster_resolver::curl)
  add_library(cluster_resolver::curl INTERFACE IMPORTED)
  set_target_properties(cluster_resolver::curl PROPERTIES
    INTERFACE_COMPILE_DEFINITIONS "CLUSTER_RESOLVER_USE_CURL"
    INTERFACE_LINK_LIBRARIES "cluster_resolver::cluster_resolver;CURL::libcurl")
endif()
set(cluster_resolver_INCLUDE_DIRS "${_cres_include_dir};${CLUSTER_RESOLVER_JSMN_INCLUDE_DIR}")
unset(_cres_prefix)
unset(_cres_include_dir)
unset(_cres_want_curl)
