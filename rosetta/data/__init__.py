"""Data loaders shared by every tab. One module per data set; common download code in fetch."""
