build-clang/obj/db/pair.o: db/pair.c db/../common/error.h \
  db/../ingest/event.h db/pair.h db/../common/u64map.h

db/../common/error.h:

db/../ingest/event.h:

db/pair.h:

db/../common/u64map.h:
