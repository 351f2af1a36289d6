"""Scripted agents: reference policies that solve worlds from their World spec."""
