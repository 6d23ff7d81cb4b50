#ifndef LATCHKEY_CARGON2_SHIM_H
#define LATCHKEY_CARGON2_SHIM_H
// The Argon2 reference implementation: verifies the argon2 hashes Keycloak (its default since 24) and others wrote.
#include <argon2.h>
#endif
