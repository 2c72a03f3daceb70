#!/bin/sh
# Install or update the companion daemon on Raspberry Pi OS (Bookworm or later), or on plain
# Debian or Ubuntu for arm64.
#
#   sudo sh systemd/install.sh /path/to/companion   (the project directory, copied to the Pi)
#
# Run as root on the Pi, or in the Pi's root file system while an SD-card image is built
# (a chroot, as pi-gen runs its stages). Safe to run again: that is also how you update (copy
# the new version over the directory, or git pull in it, then run this again). It
#   1. creates the system user "companion" and adds it to gpio, i2c, spi, dialout;
#   2. installs python3-venv, python3-spidev, fonts-dejavu-core with apt, and python3-lgpio
#      where apt has it (Raspberry Pi OS); elsewhere (Debian, Ubuntu) lgpio comes from
#      PyPI's wheel in step 4 (the output says which);
#   3. creates /opt/companion/venv (--system-site-packages, so the apt spidev, and lgpio when
#      apt has it, are used: building them from source needs swig, liblgpio-dev, a compiler);
#   4. pip-installs the project with its "pi" extra into that venv;
#   5. copies systemd/companion.example.toml to /etc/companion/companion.toml only if
#      that file does not exist yet (your edits are never overwritten);
#   6. installs systemd/companion.service and enables it; starts (or restarts) it only when
#      systemd is running and COMPANION_NO_START=1 is not set. In a chroot, where systemd
#      is not running, the unit is enabled offline and starts at the image's first boot;
#   7. links /usr/local/bin/companion to the venv's command, and adds the user who ran
#      sudo to the group "companion", so that `companion games` and `companion export`
#      read the service's games in /var/lib/companion (read-only) without sudo.
# Set COMPANION_NO_START=1 to install and enable without starting.
#
# Run in an arm64 Debian Bookworm root under qemu by `make pi-check` (hardware/pi-check);
# not run on Pi hardware by the project. See hardware/PI-INSTALL.md.
#
# Every step is a function; the last line runs them. tests/test_install_sh.py sources this
# file with COMPANION_INSTALL_SOURCED=1 (nothing runs) and calls the steps that decide
# something with fake apt-cache, apt-get, pip and systemctl commands.

set -eu

PREFIX=/opt/companion
VENV=$PREFIX/venv
CONF_DIR=/etc/companion
CONF=$CONF_DIR/companion.toml
UNIT=/etc/systemd/system/companion.service
SERVICE_USER=companion
GROUPS_WANTED="gpio i2c spi dialout"
APT_PACKAGES="python3-venv python3-spidev fonts-dejavu-core"
# The directory systemd creates at boot: present exactly when systemd runs this system
# (the test sd_booted() makes). Absent in a chroot or a container without systemd.
SYSTEMD_RUNNING_DIR=/run/systemd/system

say() { printf 'install.sh: %s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

# --- decisions ------------------------------------------------------------------------
# Where lgpio comes from: "apt" where apt's sources have python3-lgpio (the Raspberry Pi
# OS archive), else "pypi" (Debian, Ubuntu and DietPi have no python3-lgpio; PyPI has
# lgpio wheels for aarch64 and armv7l, which build nothing). Asked after apt-get update.
lgpio_source() {
    if [ -n "$(apt-cache madison python3-lgpio 2>/dev/null)" ]; then
        echo apt
    else
        echo pypi
    fi
}

# What step 6 does with the enabled unit: "start" it, or "no-start" because it was asked
# not to, or "offline" because systemd is not running (daemon-reload and start would fail;
# enable works offline and the unit starts at the next boot).
unit_action() {
    if [ ! -d "$SYSTEMD_RUNNING_DIR" ]; then
        echo offline
    elif [ "${COMPANION_NO_START:-0}" = 1 ]; then
        echo no-start
    else
        echo start
    fi
}

# --- arguments and sanity checks -------------------------------------------------------
check_source() {
    [ "$#" -eq 1 ] || die "usage: sudo sh $0 /path/to/companion-clone"
    [ "$(id -u)" -eq 0 ] || die "run as root (sudo sh $0 $1)"
    SRC=$(cd "$1" 2>/dev/null && pwd) || die "no such directory: $1"
    [ -f "$SRC/pyproject.toml" ] || die "$SRC has no pyproject.toml: pass the root of the clone"
    [ -f "$SRC/systemd/companion.service" ] || die "$SRC/systemd/companion.service is missing"
    [ -f "$SRC/systemd/companion.example.toml" ] || die "$SRC/systemd/companion.example.toml is missing"
    command -v apt-get >/dev/null || die "no apt-get: this installer is for Raspberry Pi OS, Debian or Ubuntu"
    command -v systemctl >/dev/null || die "no systemctl: the companion runs as a systemd service"
}

# --- 1. the service user --------------------------------------------------------------
make_service_user() {
    if id -u "$SERVICE_USER" >/dev/null 2>&1; then
        say "user $SERVICE_USER exists"
    else
        say "creating system user $SERVICE_USER"
        # The home is the StateDirectory (systemd creates and owns it); no login shell.
        useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
            --shell /usr/sbin/nologin --comment "board game companion" "$SERVICE_USER"
    fi
    for g in $GROUPS_WANTED; do
        if getent group "$g" >/dev/null 2>&1; then
            usermod -a -G "$g" "$SERVICE_USER"    # -a: adding twice is harmless
        else
            # Raspberry Pi OS creates these groups; udev gives them the device nodes.
            warn "group $g does not exist: the service will not reach the devices it guards"
        fi
    done
}

# --- 2. system packages ---------------------------------------------------------------
# Sets LGPIO to lgpio_source's answer, for step 4.
install_system_packages() {
    apt-get update
    LGPIO=$(lgpio_source)
    packages=$APT_PACKAGES
    if [ "$LGPIO" = apt ]; then
        packages="$packages python3-lgpio"
        say "lgpio: python3-lgpio from apt (the Raspberry Pi OS archive)"
    else
        say "lgpio: apt has no python3-lgpio (not Raspberry Pi OS): lgpio comes from PyPI's wheel"
    fi
    say "installing $packages"
    # shellcheck disable=SC2086  # word splitting of the package list is wanted
    DEBIAN_FRONTEND=noninteractive apt-get install -y $packages

    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "python3 is older than 3.11 (Raspberry Pi OS Bookworm ships 3.11)"
}

# --- 3. the virtual environment -------------------------------------------------------
make_venv() {
    if [ -x "$VENV/bin/python" ]; then
        say "venv $VENV exists"
    else
        say "creating venv $VENV"
        mkdir -p "$PREFIX"
        python3 -m venv --system-site-packages "$VENV"
    fi
}

# --- 4. the project -------------------------------------------------------------------
# Builds from a copy, so that root leaves no build/ or *.egg-info behind in the user's clone.
install_project() {
    BUILD=$(mktemp -d)
    trap 'rm -rf "$BUILD"' EXIT
    trap 'exit 130' INT TERM
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build \
        --exclude='*.egg-info' --exclude=.pytest_cache --exclude=.hypothesis -cf - . \
        | tar -C "$BUILD" -xf -
    say "installing companion[pi] from $SRC"
    if [ "$LGPIO" = apt ]; then
        PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/pip" install --upgrade "${BUILD}[pi]" \
            || die "pip could not install companion[pi] (its message above says why); without the \
network, run this again once the Pi is online"
    else
        # A wheel only: lgpio's source needs liblgpio-dev, which only Raspberry Pi OS has.
        PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/pip" install --upgrade --only-binary lgpio "${BUILD}[pi]" \
            || die "pip could not install companion[pi] (its message above says why); without the \
network, run this again once the Pi is online. If it found no lgpio wheel: PyPI has them for \
aarch64 and armv7l (lgpio 0.2.2.0: Python 3.9 to 3.12); on another processor or Python, use \
Raspberry Pi OS, whose apt has python3-lgpio"
    fi
    "$VENV/bin/companion" --help >/dev/null || die "$VENV/bin/companion does not run"
    # Which lgpio the venv ended up with, and from where (apt's dist-packages or the venv).
    where=$("$VENV/bin/python" -c 'import importlib.metadata as m; d = m.distribution("lgpio"); print(d.version, "in", d.locate_file(""))' 2>/dev/null) \
        || die "the venv has no lgpio: gpiozero would have no pin factory for the keys"
    say "lgpio $where"
}

# --- 5. configuration (never overwritten) ---------------------------------------------
install_config() {
    install -d -m 0755 "$CONF_DIR"
    # -L too: a link is the user's, even one to a file not there just now (the boot
    # partition, unmounted while an image is built); -e alone would replace it.
    if [ -e "$CONF" ] || [ -L "$CONF" ]; then
        say "keeping existing $CONF (compare with $SRC/systemd/companion.example.toml)"
    else
        say "creating $CONF from the example"
        install -m 0644 "$SRC/systemd/companion.example.toml" "$CONF"
    fi
}

# --- 6. the unit ----------------------------------------------------------------------
install_unit() {
    install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
    action=$(unit_action)
    if [ "$action" = offline ]; then
        # systemctl enable only makes links under /etc/systemd/system: it works offline.
        systemctl enable companion.service
        say "systemd is not running here (a chroot or an image build): enabled, not started;"
        say "it starts at the next boot"
        return
    fi
    systemctl daemon-reload
    systemctl enable companion.service
    if [ "$action" = no-start ]; then
        say "enabled, not started (COMPANION_NO_START=1)"
    else
        systemctl restart companion.service
        say "started; check with: systemctl status companion; journalctl -u companion -f"
    fi
}

# --- 7. the command for the user: reads the service's games --------------------------
link_command() {
    ln -sf "$VENV/bin/companion" /usr/local/bin/companion
    # The unit keeps /var/lib/companion group-readable (StateDirectoryMode=0750, UMask=0027);
    # files an older install made owner-only are opened up to the group the same way.
    if [ -d /var/lib/companion ]; then
        chmod -R g+rX,o-rwx /var/lib/companion
    fi
    if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
        usermod -a -G "$SERVICE_USER" "$SUDO_USER"
        say "$SUDO_USER may now read the games with 'companion games' (log out and in once first)"
    else
        say "to read the games without sudo: sudo usermod -aG $SERVICE_USER YOUR-USER, log in again"
    fi
}

# --- hints that need a human ----------------------------------------------------------
# The bus the configuration's [display] flags name ("i2c", "spi"), empty if none or unreadable.
# Read as luma reads them, so that a commented-out example line does not count.
display_interface() {
    "$VENV/bin/python" - "$CONF" 2>/dev/null <<'EOF'
import argparse, shlex, sys, tomllib
with open(sys.argv[1], "rb") as file:
    flags = tomllib.load(file).get("display", {}).get("flags", "")
parser = argparse.ArgumentParser(add_help=False)
parser.add_argument("--interface", default="")
print(parser.parse_known_args(shlex.split(flags))[0].interface)
EOF
}

hints() {
    if [ ! -e /dev/i2c-1 ]; then
        warn "/dev/i2c-1 is missing: enable I2C with 'sudo raspi-config nonint do_i2c 0' (it also"
        warn "loads i2c-dev at boot, which dtparam=i2c_arm=on alone does not) and reboot,"
        warn "unless your display is on SPI"
    fi
    if dpkg -s modemmanager >/dev/null 2>&1; then
        warn "ModemManager is installed: it probes new ttyACM devices (a die reader) for a few"
        warn "seconds after they appear. 'sudo apt purge modemmanager' unless you use a modem"
        warn "(hardware/README.md: a udev rule that makes it ignore the reader instead)"
    fi
    if [ "$(display_interface)" = spi ] && [ ! -e /dev/spidev0.0 ]; then
        warn "$CONF asks for an SPI display but /dev/spidev0.0 is missing:"
        warn "enable SPI (raspi-config, or dtparam=spi=on in /boot/firmware/config.txt) and reboot"
    fi
}

main() {
    check_source "$@"
    make_service_user
    install_system_packages
    make_venv
    install_project
    install_config
    install_unit
    link_command
    hints
    say "done"
}

[ "${COMPANION_INSTALL_SOURCED:-0}" = 1 ] || main "$@"
