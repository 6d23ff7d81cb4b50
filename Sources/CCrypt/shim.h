#ifndef LATCHKEY_CCRYPT_SHIM_H
#define LATCHKEY_CCRYPT_SHIM_H
// libxcrypt: verifies the modular-crypt hashes (bcrypt, sha512-crypt, yescrypt) that imported users bring along.
#include <crypt.h>
#endif
