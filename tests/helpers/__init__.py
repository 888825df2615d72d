"""What several test folders share: small file writers, fake encoders, the UI's concept model,
fault injection. Importable as ``helpers.*`` (pytest's ``pythonpath`` names ``tests``)."""
