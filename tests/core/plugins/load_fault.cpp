// Libraries that go wrong while they are loaded, or that export `dualgap_plugin` as something
// other than the data object DUALGAP_PLUGIN defines; one per value of LOAD_FAULT (CMake builds
// each into the folder of faulty plugins). None includes dualgap's headers: the loader must
// survive them whatever they are built from. Where the fault is in a constructor, the library
// exports a well-formed entry symbol, so that nothing but loading it can find the fault.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

namespace {
[[maybe_unused]] const void* no_header() { return nullptr; }  // never reached when the fault is in a constructor

[[maybe_unused]] void fault() {
#if LOAD_FAULT == 1  // crash: a write through a null pointer the compiler cannot see
  volatile int* volatile p = nullptr;  // volatile both: neither the load nor the store can go
  *p = 1;
#elif LOAD_FAULT == 2  // exit: a library that "handles" a missing resource by ending the program
  std::exit(0);
#elif LOAD_FAULT == 3  // throw: an exception out of a static initializer, so std::terminate
  throw std::runtime_error("load_fault: the model file cannot be opened");
#elif LOAD_FAULT == 4  // hang
  for (;;) ::pause();
#elif LOAD_FAULT == 10  // abort, after saying why on stderr
  std::fputs("load_fault: no licence found, giving up\n", stderr);
  std::abort();
#endif
}
}  // namespace

#if (LOAD_FAULT >= 1 && LOAD_FAULT <= 4) || LOAD_FAULT == 10
__attribute__((constructor)) static void on_load() { fault(); }
#endif

extern "C" {
#if LOAD_FAULT == 5  // the entry point as a function
EXPORT const void* dualgap_plugin() { return nullptr; }
#elif LOAD_FAULT == 6  // a data object of the wrong size
EXPORT int dualgap_plugin = 6;
#elif LOAD_FAULT == 7  // a pointer-sized object that holds no function
EXPORT const void* dualgap_plugin = nullptr;
#elif LOAD_FAULT == 8  // a pointer to data, not code
static const int not_code[4] = {1, 2, 3, 4};
EXPORT const void* dualgap_plugin = not_code;
#elif LOAD_FAULT == 9  // a crashing constructor and no entry symbol: not a plugin, never run
__attribute__((constructor)) static void on_load() {
  volatile int* volatile p = nullptr;  // volatile both: neither the load nor the store can go
  *p = 1;
}
#else  // a well-formed entry symbol, as BOOST_DLL_ALIAS writes it
EXPORT const void* dualgap_plugin = reinterpret_cast<const void*>(&no_header);
#endif
}  // extern "C"
