// A shared library that is no kgate export: it lacks kgate_export_table.
extern "C" int not_a_kgate_export(void) { return 0; }
