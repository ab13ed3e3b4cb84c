"""What every concern shares."""
