"""Numbers as people type and read them: lists of whole numbers ("16, 64,256"), byte sizes ("3.4 KiB")."""
