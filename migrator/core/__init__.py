"""Value types every layer speaks: findings and results, the device target as data."""
