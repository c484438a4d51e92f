#include "gl_api.h"
