"""Reusable widgets: job progress panel, modal dialogs (confirm, export, file picker)."""
