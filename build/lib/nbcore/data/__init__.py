"""The small datasets of the book, as CSV files (read by nbcore.datasets)."""
