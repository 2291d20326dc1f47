"""Results and resources as tables: CSV and other readers, dtypes, literals, frames."""
