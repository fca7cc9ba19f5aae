// libpq, PostgreSQL's C client library (Debian: libpq-dev; pkg-config libpq gives -I/usr/include/postgresql).
#include <libpq-fe.h>
