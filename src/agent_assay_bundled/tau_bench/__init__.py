"""tau-bench's published airline results, imported: the rules, the parser, the adapter and
the importer (each registered through the same entry points a third party uses)."""
