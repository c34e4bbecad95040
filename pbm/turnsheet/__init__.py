"""Turnsheets (§10): the PDF and plain-text forms players fill in, and reading them back."""
