// Boost.JSON compiled into core (header-only mode) so that the native and the
// Emscripten build use the very same JSON code, with no prebuilt library.
#include <boost/json/src.hpp>
