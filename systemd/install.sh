#!/bin/sh
# Install or update the companion daemon on Raspberry Pi OS (Bookworm or later).
#
#   sudo sh systemd/install.sh /path/to/companion   (the project directory, copied to the Pi)
#
# Run as root on the Pi. Safe to run again: that is also how you update (copy the new
# version over the directory, or git pull in it, then run this again). It
#   1. creates the system user "companion" and adds it to gpio, i2c, spi, dialout;
#   2. installs python3-venv, python3-lgpio, python3-spidev, fonts-dejavu-core with apt;
#   3. creates /opt/companion/venv (--system-site-packages, so the apt lgpio and spidev
#      are used: building them from PyPI needs swig, liblgpio-dev and a compiler);
#   4. pip-installs the project with its "pi" extra into that venv;
#   5. copies systemd/companion.example.toml to /etc/companion/companion.toml only if
#      that file does not exist yet (your edits are never overwritten);
#   6. installs systemd/companion.service, enables it and (re)starts it;
#   7. links /usr/local/bin/companion to the venv's command, and adds the user who ran
#      sudo to the group "companion", so that `companion games` and `companion export`
#      read the service's games in /var/lib/companion (read-only) without sudo.
# Set COMPANION_NO_START=1 to install and enable without starting.
#
# Documentation-grade: reviewed, not run in CI (the Raspberry Pi OS packages are not
# available on the build machines). See hardware/PI-INSTALL.md.

set -eu

PREFIX=/opt/companion
VENV=$PREFIX/venv
CONF_DIR=/etc/companion
CONF=$CONF_DIR/companion.toml
UNIT=/etc/systemd/system/companion.service
SERVICE_USER=companion
GROUPS_WANTED="gpio i2c spi dialout"
APT_PACKAGES="python3-venv python3-lgpio python3-spidev fonts-dejavu-core"

say() { printf 'install.sh: %s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

# --- arguments and sanity checks -------------------------------------------------------
[ "$#" -eq 1 ] || die "usage: sudo sh $0 /path/to/companion-clone"
[ "$(id -u)" -eq 0 ] || die "run as root (sudo sh $0 $1)"
SRC=$(cd "$1" 2>/dev/null && pwd) || die "no such directory: $1"
[ -f "$SRC/pyproject.toml" ] || die "$SRC has no pyproject.toml: pass the root of the clone"
[ -f "$SRC/systemd/companion.service" ] || die "$SRC/systemd/companion.service is missing"
[ -f "$SRC/systemd/companion.example.toml" ] || die "$SRC/systemd/companion.example.toml is missing"

# --- 1. the service user --------------------------------------------------------------
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

# --- 2. system packages ---------------------------------------------------------------
say "installing $APT_PACKAGES"
apt-get update
# shellcheck disable=SC2086  # word splitting of the package list is wanted
DEBIAN_FRONTEND=noninteractive apt-get install -y $APT_PACKAGES

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "python3 is older than 3.11 (Raspberry Pi OS Bookworm ships 3.11)"

# --- 3. the virtual environment -------------------------------------------------------
if [ -x "$VENV/bin/python" ]; then
    say "venv $VENV exists"
else
    say "creating venv $VENV"
    mkdir -p "$PREFIX"
    python3 -m venv --system-site-packages "$VENV"
fi

# --- 4. the project -------------------------------------------------------------------
# Build from a copy so that root leaves no build/ or *.egg-info behind in the user's clone.
BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT
trap 'exit 130' INT TERM
tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build \
    --exclude='*.egg-info' --exclude=.pytest_cache --exclude=.hypothesis -cf - . \
    | tar -C "$BUILD" -xf -
say "installing companion[pi] from $SRC"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/pip" install --upgrade "${BUILD}[pi]"
"$VENV/bin/companion" --help >/dev/null || die "$VENV/bin/companion does not run"

# --- 5. configuration (never overwritten) ---------------------------------------------
install -d -m 0755 "$CONF_DIR"
if [ -e "$CONF" ]; then
    say "keeping existing $CONF (compare with $SRC/systemd/companion.example.toml)"
else
    say "creating $CONF from the example"
    install -m 0644 "$SRC/systemd/companion.example.toml" "$CONF"
fi

# --- 6. the unit ----------------------------------------------------------------------
install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
systemctl daemon-reload
systemctl enable companion.service
if [ "${COMPANION_NO_START:-0}" = 1 ]; then
    say "enabled, not started (COMPANION_NO_START=1)"
else
    systemctl restart companion.service
    say "started; check with: systemctl status companion; journalctl -u companion -f"
fi

# --- 7. the command for the user: reads the service's games --------------------------
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

# --- hints that need a human ----------------------------------------------------------
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
if grep -q -- '--interface spi' "$CONF" 2>/dev/null && [ ! -e /dev/spidev0.0 ]; then
    warn "$CONF asks for an SPI display but /dev/spidev0.0 is missing:"
    warn "enable SPI (raspi-config, or dtparam=spi=on in /boot/firmware/config.txt) and reboot"
fi
say "done"
