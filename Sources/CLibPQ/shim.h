#ifndef ISSUER_CLIBPQ_SHIM_H
#define ISSUER_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
