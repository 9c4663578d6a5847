// dualgap public API: export macro and the plugin API version.
//
// Every public header a plugin may include lives in core/include/dualgap/. A plugin built
// against one API version is refused by a loader of another one; bump kApiVersion whenever a
// change to a public header breaks plugins (layout of a class, a virtual function, a struct).
#pragma once

#define DUALGAP_API __attribute__((visibility("default")))

namespace dualgap {

/// Version of the plugin ABI. Plugins store it in their description; the loader compares.
inline constexpr int kApiVersion = 9;

/// Version of dualgap itself (the CLI and core library).
inline constexpr const char* kVersion = "0.1.0";

}  // namespace dualgap
