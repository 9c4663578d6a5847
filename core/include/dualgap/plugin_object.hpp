// Base class of every object a plugin creates.
#pragma once

#include "dualgap/api.hpp"

namespace dualgap {

class DUALGAP_API PluginObject {
 public:
  virtual ~PluginObject();
};

}  // namespace dualgap
